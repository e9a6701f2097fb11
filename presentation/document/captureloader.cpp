// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/captureloader.h"

#include <QElapsedTimer>

namespace dimscope {

namespace {
struct LoadResult {
    LoadedCapturePtr loaded; // none: error says why (or the job was superseded)
    QString error;
};

// On a pool thread: opens the capture and builds its tree, reporting progress through
// `report` (throttled to a few updates a second) and stopping once the job is cancelled.
LoadResult openAndBuild(const CaptureLoader::OpenFunction &open, const LatestJob::Control &control,
                        const std::function<void(int done, int total)> &report)
{
    LoadResult r;
    report(0, 0);
    std::optional<CaptureAnalysis> analysis;
    try {
        analysis = open(&r.error);
    } catch (const std::exception &e) {
        r.error = QString::fromUtf8(e.what());
    }
    if (!analysis) {
        if (r.error.isEmpty())
            r.error = CaptureLoader::tr("not a readable capture");
        return r;
    }
    QElapsedTimer sinceReport;
    sinceReport.start();
    auto progress = [&](int done, int total) {
        if (control.isCancelled())
            return false;
        // Throttled, but the end always reaches the progress bar.
        if (done == total || sinceReport.elapsed() > 100) {
            sinceReport.restart();
            report(done, total);
        }
        return true;
    };
    LoadedCapturePtr loaded = LoadedCapture::build(std::move(*analysis), progress);
    if (!control.isCancelled()) // else incomplete, and dropped anyway
        r.loaded = loaded;
    return r;
}
} // namespace

CaptureLoader::CaptureLoader(QObject *parent) : QObject(parent) {}

CaptureLoader::~CaptureLoader() = default; // m_job's destructor stops the job in flight

void CaptureLoader::cancel()
{
    m_job.cancel();
}

void CaptureLoader::start(const QString &label, OpenFunction open)
{
    m_job.start(
        [this, label, open = std::move(open)](const LatestJob::Control &control) {
            // Progress hops to the GUI thread, where it is shown only while this job is current.
            auto report = [this, &control, label](int done, int total) {
                control.post([this, label, done, total] { emit progress(label, done, total); });
            };
            return openAndBuild(open, control, report);
        },
        [this, label](const LoadResult &r) {
            if (!r.loaded)
                emit failed(label, r.error);
            else
                emit loaded(label, r.loaded);
        });
}

} // namespace dimscope
