// SPDX-License-Identifier: GPL-3.0-or-later
#include "fuzzinputfile.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <cstdio>
#include <cstdlib>

namespace dimscope::fuzz {

QString FuzzInputFile::write(const uint8_t *data, size_t size, const QString &fileName)
{
    static QTemporaryDir folder(QDir::tempPath() + QStringLiteral("/dimscope-fuzz-XXXXXX"));
    if (!folder.isValid()) {
        std::fprintf(stderr, "fuzz: cannot make a temporary folder: %s\n", qPrintable(folder.errorString()));
        std::abort();
    }
    const QString path = folder.filePath(fileName);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)
        || file.write(reinterpret_cast<const char *>(data), qint64(size)) != qint64(size)) {
        std::fprintf(stderr, "fuzz: cannot write %s: %s\n", qPrintable(path), qPrintable(file.errorString()));
        std::abort();
    }
    return path;
}

} // namespace dimscope::fuzz
