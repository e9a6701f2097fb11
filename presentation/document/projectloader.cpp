// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/projectloader.h"

#include <optional>

namespace dimscope {

namespace {
struct ReadResult {
    std::optional<ProjectFile> project;
    QString error;
};
} // namespace

ProjectLoader::ProjectLoader(QObject *parent) : QObject(parent) {}

ProjectLoader::~ProjectLoader() = default;

void ProjectLoader::cancel()
{
    m_job.cancel();
}

void ProjectLoader::read(const QString &path)
{
    m_job.start(
        [path](const LatestJob::Control &) {
            ReadResult r;
            r.project = ProjectFile::read(path, &r.error);
            return r;
        },
        [this, path](const ReadResult &r) {
            if (r.project)
                emit projectRead(path, *r.project);
            else
                emit failed(path, r.error);
        });
}

} // namespace dimscope
