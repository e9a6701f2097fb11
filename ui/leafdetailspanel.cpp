// SPDX-License-Identifier: GPL-3.0-or-later
#include "leafdetailspanel.h"

#include "elidedlabel.h"
#include "firstpaint.h"

#include "tableactions.h"

#include "models/dtypetext.h"
#include "document/projectdocument.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace dimscope {

LeafDetailsPanel::LeafDetailsPanel(QWidget *parent)
    : QWidget(parent), m_title(new ElidedLabel(Qt::ElideMiddle, this)), m_table(new QTableWidget(this)),
      m_statistics(new LeafStatistics(this))
{
    setObjectName(QStringLiteral("leafDetails"));
    m_title->setObjectName(QStringLiteral("leafDetailsTitle"));
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_title->setFullText(tr("Select a leaf to see it in every call."));
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
    connect(m_statistics, &LeafStatistics::started, this, &LeafDetailsPanel::statisticsStarted);
    connect(m_statistics, &LeafStatistics::cancelled, this, &LeafDetailsPanel::statisticsCancelled);
    connect(m_statistics, &LeafStatistics::finished, this, [this](int node) {
        if (node == m_node)
            showStatistics(m_statistics->statistics());
    });
}

LeafDetailsPanel::~LeafDetailsPanel() = default; // m_statistics stops the job in flight

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
            requestStatistics();
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
    m_statistics->clear();
    m_node = node;
    m_table->setRowCount(0);
    if (!m_loaded || node <= 0 || node >= m_loaded->tree.nodes().size() || !m_loaded->tree.node(node).isLeaf()) {
        m_title->setFullText(tr("Select a leaf to see it in every call."));
        return;
    }
    const AlignedNode &n = m_loaded->tree.node(node);
    m_title->setFullText(n.path);
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
        requestStatistics();
}

void LeafDetailsPanel::requestStatistics()
{
    if (m_node > 0)
        m_statistics->request(m_loaded, m_node); // debounced: arrowing through the tree computes the leaf it stops on
}

void LeafDetailsPanel::fitColumns()
{
    // Measures the visible rows and up to 64 others (the precision set above).
    m_table->resizeColumnsToContents();
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
