// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "models/loadedcapture.h"
#include "inference/captureanalysis.h"
#include "util/latestjob.h"

#include <QObject>

#include <functional>

namespace dimscope {

// Opens a capture and builds its tree off the GUI thread. A new start() supersedes the
// job in flight (LatestJob): its results are dropped and it is asked to stop.
class CaptureLoader : public QObject
{
    Q_OBJECT
public:
    // Runs on a worker thread: returns the capture and its inference, or sets *error
    // and returns none.
    using OpenFunction = std::function<std::optional<CaptureAnalysis>(QString *error)>;

    explicit CaptureLoader(QObject *parent = nullptr);
    ~CaptureLoader() override;

    void start(const QString &label, OpenFunction open);
    void cancel();
    bool isRunning() const { return m_job.isRunning(); }

signals:
    void progress(const QString &label, int done, int total);
    void loaded(const QString &label, const dimscope::LoadedCapturePtr &capture);
    void failed(const QString &label, const QString &error);

private:
    LatestJob m_job;
};

} // namespace dimscope
