// SPDX-License-Identifier: GPL-3.0-or-later
#include "projectloader.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

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
    ++m_generation;
    m_running = false;
}

void ProjectLoader::read(const QString &path)
{
    cancel();
    const int generation = m_generation;
    m_running = true;
    auto *watcher = new QFutureWatcher<ReadResult>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation, path] {
        watcher->deleteLater();
        if (generation != m_generation)
            return; // superseded or cancelled
        m_running = false;
        const ReadResult r = watcher->result();
        if (r.project)
            emit projectRead(path, *r.project);
        else
            emit failed(path, r.error);
    });
    watcher->setFuture(QtConcurrent::run([path] {
        ReadResult r;
        r.project = ProjectFile::read(path, &r.error);
        return r;
    }));
}

} // namespace dimscope
