#include "leafdetailspanel.h"

#include "models/dtypetext.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace dimscope {

LeafDetailsPanel::LeafDetailsPanel(QWidget *parent)
    : QWidget(parent), m_title(new QLabel(this)), m_table(new QTableWidget(this))
{
    setObjectName(QStringLiteral("leafDetails"));
    m_title->setObjectName(QStringLiteral("leafDetailsTitle"));
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_title->setText(tr("Select a leaf to see it in every call."));
    m_table->setObjectName(QStringLiteral("leafDetailsTable"));
    m_table->setColumnCount(ColumnCount);
    m_table->setHorizontalHeaderLabels({tr("Call"), tr("dtype"), tr("Shape"), tr("Device"), tr("Min"), tr("Max"),
                                        tr("Mean"), tr("Std"), tr("NaN"), tr("Inf")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_title);
    layout->addWidget(m_table, 1);
}

LeafDetailsPanel::~LeafDetailsPanel() = default;

void LeafDetailsPanel::setLoaded(const LoadedCapturePtr &loaded)
{
    m_loaded = loaded;
    showNode(-1);
}

void LeafDetailsPanel::showNode(int node)
{
    ++m_generation;
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
    }
    emit statisticsFinished();
}

} // namespace dimscope
