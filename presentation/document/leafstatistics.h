// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "capture/tensorstats.h"
#include "models/loadedcapture.h"
#include "util/latestjob.h"

#include <QHash>
#include <QObject>
#include <QTimer>
#include <QVector>

namespace dimscope {

// The value statistics of the selected leaf in every call, for the leaf details panel.
// They read every byte of the leaf in every call (seconds for a large cache, and the
// first one loads LibTorch), so they run off the GUI thread, one job at a time
// (LatestJob): requests within kDebounceMs of each other start one job, for the last,
// and a new request or clear() cancels the job in flight (it stops at its next chunk,
// TensorStatsOptions::cancel) and drops its result.
class LeafStatistics : public QObject
{
    Q_OBJECT
public:
    static constexpr int kDebounceMs = 100;

    explicit LeafStatistics(QObject *parent = nullptr);
    ~LeafStatistics() override;

    // Computes the statistics of `node`, a leaf of `loaded`'s tree, kDebounceMs after
    // the last request; drops the statistics held, the request pending and the job in
    // flight. A node that is not a leaf of the tree clears.
    void request(const LoadedCapturePtr &loaded, int node);
    // Drops the statistics held, the request pending and the job in flight.
    void clear();

    // The node whose statistics are held (-1: none), and its statistics per call
    // (default TensorStats where the leaf is absent or not a tensor).
    int node() const { return m_node; }
    const QVector<TensorStats> &statistics() const { return m_statistics; }

signals:
    // For the panel and the tests: a job began for `node` (after the debounce); a job
    // superseded or cleared ended, its result dropped; the statistics of `node` are held.
    void started(int node);
    void cancelled(int node);
    void finished(int node);

private:
    void startJob();
    void jobDropped(LatestJob::JobId job);

    LatestJob m_job;
    QTimer m_debounce;
    LoadedCapturePtr m_pendingCapture; // the request waiting for the debounce
    int m_pendingNode = -1;
    QHash<LatestJob::JobId, int> m_jobNodes; // jobs started and not ended
    int m_node = -1;
    QVector<TensorStats> m_statistics;
};

} // namespace dimscope
