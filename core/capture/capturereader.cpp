#include "capture/capturereader.h"

#include "capture/internpool.h"
#include "capture/manifestparser.h"
#include "capture/mappedfile.h"
#include "capture/safetensorsheader.h"

#include <QDir>
#include <QtEndian>

namespace dimscope {

std::optional<Capture> CaptureReader::open(const QString &path, QString *error)
{
    QString message;
    auto failed = [&]() -> std::optional<Capture> {
        // One line, whatever the file contained (keys and paths are quoted from it).
        for (qsizetype i = message.size() - 1; i >= 0; --i) {
            if (message.at(i).unicode() < 0x20)
                message.replace(i, 1, QStringLiteral("\\x%1").arg(message.at(i).unicode(), 2, 16, QLatin1Char('0')));
        }
        if (error)
            *error = QDir::toNativeSeparators(path) + QLatin1String(": ") + message;
        return std::nullopt;
    };

    std::unique_ptr<MappedFile> file = MappedFile::open(path, &message);
    if (!file)
        return failed();

    const quint64 headerLength = qFromLittleEndian<quint64>(file->data());
    const quint64 room = quint64(file->size() - 8);
    if (headerLength == 0) {
        message = QStringLiteral("header length is 0 (a safetensors header is a JSON object)");
        return failed();
    }
    if (headerLength > room) {
        message = QStringLiteral("header length %1 runs past the end of the file (%2 bytes)").arg(headerLength).arg(file->size());
        return failed();
    }
    const qint64 headerSize = qint64(headerLength);
    const qint64 dataStart = 8 + headerSize;

    Capture capture;
    capture.filePath = path;
    capture.fileSize = file->size();
    capture.headerSize = headerSize;
    {
        InternPool pool;
        SafetensorsHeader header;
        char *headerText = reinterpret_cast<char *>(file->writableData() + 8);
        bool ok = header.parse(headerText, headerSize, file->size() - dataStart, pool, &message);
        if (ok && !header.hasMetadata()) {
            message = QStringLiteral("no __metadata__ in the header: a plain safetensors file, not a dimscope capture");
            ok = false;
        } else if (ok && !header.hasManifest()) {
            message = QStringLiteral("__metadata__ has no 'dimscope.manifest': not a dimscope capture");
            ok = false;
        }
        if (ok) {
            ManifestParser parser(header, dataStart, pool);
            // Manifest bytes already parsed are never read again: hand their pages
            // back as the calls go by, so the header is never resident all at once.
            const uchar *base = file->data();
            MappedFile *mapped = file.get();
            parser.setConsumedCallback([base, mapped](const char *upTo) {
                mapped->releaseBefore(reinterpret_cast<const uchar *>(upTo) - base);
            });
            ok = parser.parse(header.manifest(), capture, &message);
        }
        // The manifest was decoded in place (copy-on-write pages): dropping the
        // header's pages restores the file's bytes and gives their memory back.
        file->release(8, headerSize);
        if (!ok)
            return failed();
    }
    capture.mapping = QSharedPointer<MappedFile>(file.release());
    return capture;
}

} // namespace dimscope
