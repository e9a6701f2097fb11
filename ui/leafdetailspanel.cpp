// SPDX-License-Identifier: GPL-3.0-or-later
#include "leafdetailspanel.h"

#include "firstpaint.h"

#include "tableactions.h"

#include "capture/tensorstats.h"
#include "models/dtypetext.h"
#include "projectdocument.h"

#include <QFutureWatcher>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <cmath>
#include <optional>

namespace dimscope {

LeafDetailsPanel::LeafDetailsPanel(QWidget *parent)
    : QWidget(parent), m_title(new QLabel(this)), m_table(new QTableWidget(this))
{
    setObjectName(QStringLiteral("leafDetails"));
    m_title->setObjectName(QStringLiteral("leafDetailsTitle"));
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_title->setText(tr("Select a leaf to see it in every call."));
    m_table->setObjectName(QStringLiteral("leafDetailsTable"));
    TableActions::attach(m_table, tr("Leaf details")); // Copy (Ctrl+C) and Export as CSV…
    m_table->setColumnCount(ColumnCount);
    m_table->setHorizontalHeaderLabels({tr("Call"), tr("dtype"), tr("Shape"), tr("Device"), tr("Min"), tr("Max"),
                                        tr("Mean"), tr("Std"), tr("NaN"), tr("Inf")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    // Columns are fitted once per fill (fitColumns), not kept fitted: with ResizeToContents
    // every one of the ~2,500 cells set for a 256-call capture re-measured the columns
    // over every row, seconds of text layout on the GUI thread.
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->horizontalHeader()->setResizeContentsPrecision(64);
    m_table->verticalHeader()->setResizeContentsPrecision(64);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_title);
    layout->addWidget(m_table, 1);
    m_debounce.setSingleShot(true);
    m_debounce.setInterval(kDebounceMs);
    connect(&m_debounce, &QTimer::timeout, this, &LeafDetailsPanel::startStatistics);
}

LeafDetailsPanel::~LeafDetailsPanel()
{
    // The pool thread holds the capture (shared) and not this panel: stopping it only
    // spares the CPU, and the application's exit from waiting for it.
    cancelStatistics();
}

void LeafDetailsPanel::setLoaded(const LoadedCapturePtr &loaded)
{
    m_loaded = loaded;
    showNode(-1);
    // The first statistic loads LibTorch (about a second of CPU on a pool thread): not
    // while the new capture's tree is being laid out and painted, but after that paint.
    if (loaded && isVisible()) {
        m_waitingForPaint = true;
        FirstPaint::then(this, [this] {
            m_waitingForPaint = false;
            if (m_node > 0)
                m_debounce.start();
        });
    }
}

void LeafDetailsPanel::setDocument(ProjectDocument *document)
{
    connect(document, &ProjectDocument::captureChanged, this, [this, document] { setLoaded(document->loaded()); });
    setLoaded(document->loaded());
}

void LeafDetailsPanel::showNode(int node)
{
    ++m_generation;
    cancelStatistics();
    m_debounce.stop();
    m_node = node;
    m_table->setRowCount(0);
    if (!m_loaded || node <= 0 || node >= m_loaded->tree.nodes().size() || !m_loaded->tree.node(node).isLeaf()) {
        m_title->setText(tr("Select a leaf to see it in every call."));
        return;
    }
    const AlignedNode &n = m_loaded->tree.node(node);
    m_title->setText(n.path);
    const int calls = m_loaded->tree.callCount();
    m_table->setRowCount(calls);
    for (int c = 0; c < calls; ++c) {
        const Leaf *leaf = AlignedTree::leafIn(m_loaded->capture, n, c);
        auto set = [&](int col, const QString &text) { m_table->setItem(c, col, new QTableWidgetItem(text)); };
        set(CallColumn, QString::number(c));
        if (!leaf) {
            set(DTypeColumn, tr("absent"));
            continue;
        }
        if (!leaf->isTensor()) {
            set(DTypeColumn, leaf->kind == NodeKind::None ? QStringLiteral("None") : tr("scalar"));
            set(ShapeColumn, leaf->value.toVariant().toString());
            continue;
        }
        set(DTypeColumn, dtypeText(leaf->dtype));
        set(ShapeColumn, ShapeSummary::shapeText(leaf->shape));
        set(DeviceColumn, leaf->device);
        for (int col = MinColumn; col < ColumnCount; ++col)
            set(col, QStringLiteral("…"));
    }
    fitColumns();
    if (!m_waitingForPaint)
        m_debounce.start(); // arrowing through the tree computes the leaf it stops on
}

void LeafDetailsPanel::fitColumns()
{
    // Measures the visible rows and up to 64 others (the precision set above).
    m_table->resizeColumnsToContents();
}

void LeafDetailsPanel::cancelStatistics()
{
    if (m_cancel)
        m_cancel->store(true);
    m_cancel.reset();
}

void LeafDetailsPanel::startStatistics()
{
    if (!m_loaded || m_node <= 0 || m_node >= m_loaded->tree.nodes().size())
        return;
    // Lands here only if the selection has not moved on (generation); a newer
    // selection also sets `cancel`, so the job stops within a chunk instead of
    // reading the rest of the leaf for nothing.
    const int generation = m_generation;
    const int shownNode = m_node;
    const LoadedCapturePtr loaded = m_loaded;
    const AlignedNode node = loaded->tree.node(m_node);
    auto cancel = std::make_shared<std::atomic_bool>(false);
    m_cancel = cancel;
    using Result = std::optional<QVector<TensorStats>>; // nullopt: cancelled before the end
    auto *watcher = new QFutureWatcher<Result>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation, shownNode] {
        watcher->deleteLater();
        const Result stats = watcher->result();
        if (!stats)
            emit statisticsCancelled(shownNode);
        else if (generation == m_generation)
            showStatistics(*stats);
    });
    emit statisticsStarted(shownNode);
    watcher->setFuture(QtConcurrent::run([loaded, node, cancel]() -> Result {
        TensorStatsOptions options;
        options.cancel = cancel.get();
        QVector<TensorStats> all(node.leafInCall.size());
        for (int c = 0; c < node.leafInCall.size(); ++c) {
            if (cancel->load())
                return std::nullopt;
            const Leaf *leaf = AlignedTree::leafIn(loaded->capture, node, c);
            if (leaf && leaf->isTensor())
                all[c] = computeTensorStats(loaded->capture, c, node.leafInCall.at(c), options);
            if (all.at(c).cancelled)
                return std::nullopt;
        }
        return all;
    }));
}

void LeafDetailsPanel::showStatistics(const QVector<TensorStats> &stats)
{
    auto number = [](double v) { return std::isnan(v) ? QStringLiteral("–") : QString::number(v, 'g', 6); };
    for (int c = 0; c < stats.size() && c < m_table->rowCount(); ++c) {
        const TensorStats &s = stats.at(c);
        if (!m_table->item(c, MinColumn))
            continue; // absent or not a tensor in this call
        auto set = [&](int col, const QString &text) { m_table->item(c, col)->setText(text); };
        if (!s.ok) {
            for (int col = MinColumn; col < ColumnCount; ++col) {
                set(col, QStringLiteral("–"));
                m_table->item(c, col)->setToolTip(s.error);
            }
            continue;
        }
        set(MinColumn, number(s.min));
        set(MaxColumn, number(s.max));
        set(MeanColumn, number(s.mean));
        set(StdColumn, number(s.std));
        set(NanColumn, QString::number(s.nanCount));
        set(InfColumn, QString::number(s.infCount));
    }
    fitColumns();
    emit statisticsFinished();
}

} // namespace dimscope
