// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "project/projectfile.h"
#include "util/latestjob.h"

#include <QObject>
#include <QString>

namespace dimscope {

// Reads a .dimscope project off the GUI thread. A project may hold up to 256 MB of
// constraints (ProjectFile::kMaxBytes); read on the GUI thread, a large one froze the
// window for 40 s. A new read() supersedes the one in flight: its result is dropped
// (the reader cannot stop midway; it is bounded by the project's limits). One of
// read() or failed() follows each read() not superseded.
class ProjectLoader : public QObject
{
    Q_OBJECT
public:
    explicit ProjectLoader(QObject *parent = nullptr);
    ~ProjectLoader() override;

    void read(const QString &path);
    void cancel(); // drops the result of the read in flight
    bool isRunning() const { return m_job.isRunning(); }

signals:
    void projectRead(const QString &path, const dimscope::ProjectFile &project);
    void failed(const QString &path, const QString &error);

private:
    LatestJob m_job;
};

} // namespace dimscope
