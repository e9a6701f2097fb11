// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/leafstatistics.h"

namespace dimscope {

namespace {

bool isLeafOf(const LoadedCapturePtr &loaded, int node)
{
    return loaded && node > 0 && node < loaded->tree.nodes().size() && loaded->tree.node(node).isLeaf();
}

// On a pool thread: the statistics of `node` in every call. Stops at the next chunk
// once the job is cancelled (the result is then incomplete, and dropped by LatestJob).
QVector<TensorStats> computeInEveryCall(const LoadedCapturePtr &loaded, const AlignedNode &node,
                                        const LatestJob::Control &control)
{
    TensorStatsOptions options;
    options.cancel = control.cancelFlag();
    QVector<TensorStats> all(node.leafInCall.size());
    for (int c = 0; c < node.leafInCall.size() && !control.isCancelled(); ++c) {
        const Leaf *leaf = AlignedTree::leafIn(loaded->capture, node, c);
        if (leaf && leaf->isTensor())
            all[c] = computeTensorStats(loaded->capture, c, node.leafInCall.at(c), options);
    }
    return all;
}

} // namespace

LeafStatistics::LeafStatistics(QObject *parent) : QObject(parent)
{
    m_debounce.setSingleShot(true);
    m_debounce.setInterval(kDebounceMs);
    connect(&m_debounce, &QTimer::timeout, this, &LeafStatistics::startJob);
    connect(&m_job, &LatestJob::dropped, this, &LeafStatistics::jobDropped);
    connect(&m_job, &LatestJob::finished, this, [this](LatestJob::JobId job) { m_jobNodes.remove(job); });
}

// The pool thread holds the capture (shared) and not this object: stopping the job
// (m_job's destructor) only spares the CPU, and the application's exit from waiting.
LeafStatistics::~LeafStatistics() = default;

void LeafStatistics::clear()
{
    m_debounce.stop();
    m_job.cancel();
    m_pendingCapture.reset();
    m_pendingNode = -1;
    m_node = -1;
    m_statistics.clear();
}

void LeafStatistics::request(const LoadedCapturePtr &loaded, int node)
{
    clear();
    if (!isLeafOf(loaded, node))
        return;
    m_pendingCapture = loaded;
    m_pendingNode = node;
    m_debounce.start(); // arrowing through the tree computes the leaf it stops on
}

void LeafStatistics::startJob()
{
    const LoadedCapturePtr loaded = std::exchange(m_pendingCapture, {});
    const int node = std::exchange(m_pendingNode, -1);
    if (!isLeafOf(loaded, node))
        return;
    const AlignedNode aligned = loaded->tree.node(node);
    const LatestJob::JobId job = m_job.start(
        [loaded, aligned](const LatestJob::Control &control) { return computeInEveryCall(loaded, aligned, control); },
        [this, node](const QVector<TensorStats> &statistics) {
            m_node = node;
            m_statistics = statistics;
            emit finished(node);
        });
    m_jobNodes.insert(job, node);
    emit started(node);
}

void LeafStatistics::jobDropped(LatestJob::JobId job)
{
    const auto it = m_jobNodes.constFind(job);
    if (it == m_jobNodes.cend())
        return;
    const int node = it.value();
    m_jobNodes.erase(it);
    emit cancelled(node);
}

} // namespace dimscope
