// SPDX-License-Identifier: GPL-3.0-or-later
#include "captureloader.h"

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

namespace dimscope {

namespace {
struct LoadResult {
    LoadedCapturePtr loaded;
    QString error;
    bool cancelled = false;
};
} // namespace

CaptureLoader::CaptureLoader(QObject *parent) : QObject(parent) {}

CaptureLoader::~CaptureLoader()
{
    if (m_cancel)
        *m_cancel = true;
}

void CaptureLoader::cancel()
{
    if (m_cancel)
        *m_cancel = true;
    ++m_generation;
    m_running = false;
}

void CaptureLoader::start(const QString &label, OpenFunction open)
{
    cancel();
    const int generation = m_generation;
    m_running = true;
    auto cancelFlag = std::make_shared<std::atomic_bool>(false);
    m_cancel = cancelFlag;
    QPointer<CaptureLoader> self(this);

    // Progress is throttled to a few updates a second and hops to the GUI thread.
    auto report = [self, generation, label](int done, int total) {
        QMetaObject::invokeMethod(
            self.data(),
            [self, generation, label, done, total] {
                if (self && self->m_generation == generation)
                    emit self->progress(label, done, total);
            },
            Qt::QueuedConnection);
    };

    auto *watcher = new QFutureWatcher<LoadResult>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation, label] {
        watcher->deleteLater();
        if (generation != m_generation)
            return; // superseded or cancelled
        m_running = false;
        const LoadResult r = watcher->result();
        if (r.cancelled)
            return;
        if (!r.loaded)
            emit failed(label, r.error);
        else
            emit loaded(label, r.loaded);
    });
    watcher->setFuture(QtConcurrent::run([open = std::move(open), cancelFlag, report]() -> LoadResult {
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
                r.error = tr("not a readable capture");
            return r;
        }
        QElapsedTimer sinceReport;
        sinceReport.start();
        auto progress = [&](int done, int total) {
            if (*cancelFlag)
                return false;
            // Throttled, but the end always reaches the progress bar.
            if (done == total || sinceReport.elapsed() > 100) {
                sinceReport.restart();
                report(done, total);
            }
            return true;
        };
        LoadedCapturePtr loaded = LoadedCapture::build(std::move(*analysis), progress);
        if (*cancelFlag) {
            r.cancelled = true;
            return r;
        }
        r.loaded = loaded;
        return r;
    }));
}

} // namespace dimscope
