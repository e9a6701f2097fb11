// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: the .pt2 reader. An input that starts like a zip ("PK") is a
// whole archive given to Pt2Reader::open (written to a file: libzip opens paths);
// anything else is a program record's JSON given to Pt2ProgramParser, the part of
// the reader behind the archive, which random bytes rarely reach through a zip
// (every record is CRC-checked). Limits are small so that an input cannot make the
// reader allocate past -rss_limit_mb while staying inside them.

#include "fuzzinputfile.h"
#include "pt2/pt2programparser.h"
#include "pt2/pt2reader.h"

#include <cstdio>
#include <cstdlib>

using namespace dimscope;

namespace {

const qint64 kProgramBytes = qint64(8) << 20;
const qint64 kInterfaceBytes = qint64(4) << 20;
const qint64 kInterfaceElements = 200000;

void requireReason(bool ok, const QString &error, const char *reader)
{
    if (!ok && error.isEmpty()) {
        std::fprintf(stderr, "%s refused the input without saying why\n", reader);
        std::abort();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    QString error;
    if (size >= 2 && data[0] == 'P' && data[1] == 'K') {
        const QString path = fuzz::FuzzInputFile::write(data, size, QStringLiteral("input.pt2"));
        Pt2ReadLimits limits;
        limits.programJsonBytes = kProgramBytes;
        limits.interfaceJsonBytes = kInterfaceBytes;
        limits.interfaceJsonElements = kInterfaceElements;
        requireReason(Pt2Reader::open(path, &error, limits).has_value(), error, "Pt2Reader");
        return 0;
    }
    Pt2Program program;
    const QByteArray json = QByteArray::fromRawData(reinterpret_cast<const char *>(data), qsizetype(size));
    requireReason(Pt2ProgramParser::parse(json, &program, &error, kInterfaceBytes, kInterfaceElements), error, "Pt2ProgramParser");
    return 0;
}
