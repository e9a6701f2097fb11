// SPDX-License-Identifier: GPL-3.0-or-later
#include "capture/capturereader.h"

#include "capture/headerbuffer.h"
#include "capture/internpool.h"
#include "json/jsoncursor.h"
#include "capture/manifestparser.h"
#include "capture/mappedfile.h"
#include "capture/safetensorsheader.h"
#include "util/terminaltext.h"

#include <QDir>
#include <QtEndian>

#include <algorithm>

namespace dimscope {

namespace {

// Why the header length does not fit, without the length itself: for a file that
// is no capture at all (/etc/shadow, a key) it is the file's first 8 bytes read as
// a number, and an error message must not print a file's content.
QString tooLongHeader(const MappedFile &file)
{
    char first = 0;
    QString ignored;
    // A safetensors header is a JSON object: a '{' after the length says the file
    // is one, cut short; anything else, that it never was one.
    if (file.size() > 8 && file.readAt(8, 1, &first, &ignored) && first == '{')
        return QStringLiteral("truncated safetensors file: its header runs past the end of the file (%1 bytes)").arg(file.size());
    return QStringLiteral("not a safetensors file: it does not start with the length of a header that fits in it (%1 bytes)")
        .arg(file.size());
}

// Why the header cannot be a JSON object, judged from its first bytes alone (as the
// parser would judge it); empty when they begin one or are all whitespace.
QString notAnObject(const MappedFile &file, quint64 headerLength)
{
    char first[4096];
    const qint64 n = qint64(std::min<quint64>(headerLength, sizeof first));
    QString ignored;
    if (!file.readAt(8, n, first, &ignored))
        return {}; // the read of the header reports it
    JsonCursor c(first, first + n);
    const JsonCursor::Type top = c.peekType();
    if (top == JsonCursor::Type::Object || c.atEnd())
        return {};
    return top == JsonCursor::Type::Invalid
        ? QStringLiteral("header is not valid JSON (it must start with '{')")
        : QStringLiteral("header is not a JSON object (found %1)").arg(QLatin1String(JsonCursor::typeName(top)));
}

} // namespace

std::optional<Capture> CaptureReader::open(const QString &path, QString *error)
{
    QString message;
    auto failed = [&]() -> std::optional<Capture> {
        // One line, whatever the file contained (keys and paths are quoted from it),
        // with nothing a terminal would act on (docs/security.md).
        if (error)
            *error = TerminalText::escaped(QDir::toNativeSeparators(path) + QLatin1String(": ") + message);
        return std::nullopt;
    };

    std::unique_ptr<MappedFile> file = MappedFile::open(path, &message);
    if (!file)
        return failed();

    // The header is read with pread, never through the mapping: a file truncated
    // while it is parsed then gives an error, not SIGBUS (see MappedFile).
    uchar prefix[8];
    if (!file->readAt(0, 8, prefix, &message))
        return failed();
    const quint64 headerLength = qFromLittleEndian<quint64>(prefix);
    const quint64 room = quint64(file->size() - 8);
    if (headerLength == 0) {
        message = QStringLiteral("header length is 0 (a safetensors header is a JSON object)");
        return failed();
    }
    if (headerLength > room) {
        message = tooLongHeader(*file);
        return failed();
    }
    // Refused before the header is read: a length that fits a sparse file of a few KB
    // would otherwise be read whole (3 GB took 8 s) before the JSON was found wrong.
    message = notAnObject(*file, headerLength);
    if (!message.isEmpty())
        return failed();
    if (headerLength > quint64(kMaxHeaderBytes)) {
        message = QStringLiteral("header is longer than %1 bytes, the most a capture may have (docs/capture-format.md)")
                      .arg(kMaxHeaderBytes);
        return failed();
    }
    const qint64 headerSize = qint64(headerLength);
    const qint64 dataStart = 8 + headerSize;
    std::unique_ptr<HeaderBuffer> text = HeaderBuffer::read(*file, 8, headerSize, &message);
    if (!text)
        return failed();

    Capture capture;
    capture.filePath = path;
    capture.fileSize = file->size();
    capture.headerSize = headerSize;
    {
        InternPool pool;
        SafetensorsHeader header;
        bool ok = header.parse(text->data(), headerSize, file->size() - dataStart, pool, &message);
        if (ok && !header.hasMetadata()) {
            message = QStringLiteral("no __metadata__ in the header: a plain safetensors file, not a dimscope capture");
            ok = false;
        } else if (ok && !header.hasManifest()) {
            message = QStringLiteral("__metadata__ has no 'dimscope.manifest': not a dimscope capture");
            ok = false;
        }
        if (ok) {
            // From here on only the manifest is read: the rest of the header (mostly
            // the tensor table's text, which the names were copied out of) goes back
            // before the calls' structures grow.
            header.keepNamesOnly();
            const char *manifestBegin = header.manifest().data();
            const char *manifestEnd = manifestBegin + header.manifest().size();
            text->release(text->data(), manifestBegin);
            text->release(manifestEnd, text->data() + headerSize);

            ManifestParser parser(header, dataStart, pool);
            // Manifest bytes already parsed are never read again: hand their pages
            // back as the calls go by, so that the memory the header took shrinks
            // while the calls' structures grow. Only the manifest's own pages: the
            // header around it went above. The whole buffer goes when open() returns.
            // Pages go back in steps of kReleaseStep, not after every call: each
            // madvise flushes the TLB on every CPU the process ran on, and one per
            // call cost a fifth of the open time (33,280 leaves, 256 calls).
            HeaderBuffer *buffer = text.get();
            parser.setConsumedCallback([buffer, manifestBegin, releasedUpTo = manifestBegin](const char *upTo) mutable {
                constexpr qint64 kReleaseStep = 1 << 20;
                if (upTo - releasedUpTo < kReleaseStep)
                    return;
                buffer->release(manifestBegin, upTo);
                releasedUpTo = upTo;
            });
            ok = parser.parse(header.manifest(), capture, &message);
            capture.tensorNames = header.names();
        }
        if (!ok)
            return failed();
    }
    capture.mapping = QSharedPointer<MappedFile>(file.release());
    return capture;
}

} // namespace dimscope
