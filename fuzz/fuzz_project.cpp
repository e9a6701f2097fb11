// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: .dimscope projects (ProjectFile, docs/project-format.md). The
// reader takes a path, so the input is written to a file (FuzzInputFile). A project
// that reads must survive a round trip through toJson: the same capture path, model
// reference, constraints and export options.

#include "fuzzinputfile.h"
#include "project/projectfile.h"

#include <cstdio>
#include <cstdlib>

using namespace dimscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QString path = fuzz::FuzzInputFile::write(data, size, QStringLiteral("input.dimscope"));
    QString error;
    const std::optional<ProjectFile> project = ProjectFile::read(path, &error);
    if (!project) {
        if (error.isEmpty()) {
            std::fprintf(stderr, "ProjectFile refused the project without saying why\n");
            std::abort();
        }
        return 0;
    }
    const QByteArray written = ProjectFile::toJson(*project, path);
    const QString again = fuzz::FuzzInputFile::write(reinterpret_cast<const uint8_t *>(written.constData()),
                                                     size_t(written.size()), QStringLiteral("again.dimscope"));
    const std::optional<ProjectFile> reread = ProjectFile::read(again, &error);
    if (!reread || !(*reread == *project)) {
        std::fprintf(stderr, "the written project does not read back the same (%s):\n%s\n",
                     qPrintable(error), written.constData());
        std::abort();
    }
    return 0;
}
