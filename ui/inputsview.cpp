// SPDX-License-Identifier: GPL-3.0-or-later
#include "inputsview.h"

#include "models/inputsdecorator.h"
#include "document/projectdocument.h"

#include "models/inputsfilterproxy.h"
#include "models/inputsmodel.h"
#include "shapedelegate.h"

#include <QKeyEvent>
#include <QLabel>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QStyle>
#include <QLineEdit>
#include <QTimer>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

namespace dimscope {

InputsView::InputsView(QWidget *parent)
    : QWidget(parent), m_model(new InputsModel(this)), m_proxy(new InputsFilterProxy(this)), m_tree(new QTreeView(this)),
      m_filter(new QLineEdit(this)), m_filterTimer(new QTimer(this)), m_filterCount(new QLabel(this)),
      m_noMatch(new QLabel(m_tree->viewport()))
{
    m_proxy->setSourceModel(m_model);

    m_filter->setObjectName(QStringLiteral("inputsFilter"));
    m_filter->setPlaceholderText(tr("Filter key paths (Ctrl+F)"));
    m_filter->setClearButtonEnabled(true);
    // Filtering 30,000 leaves on every key stroke would stall typing.
    m_filterTimer->setSingleShot(true);
    m_filterTimer->setInterval(300);
    connect(m_filter, &QLineEdit::textChanged, m_filterTimer, qOverload<>(&QTimer::start));
    connect(m_filterTimer, &QTimer::timeout, this, &InputsView::applyFilter);
    // Escape in the filter clears it at once (no debounce: nothing is being typed).
    m_filter->installEventFilter(this);

    auto *expand = new QToolButton(this);
    expand->setObjectName(QStringLiteral("expandAll"));
    expand->setText(tr("Expand all"));
    connect(expand, &QToolButton::clicked, this, &InputsView::expandAll);
    auto *collapse = new QToolButton(this);
    collapse->setObjectName(QStringLiteral("collapseAll"));
    collapse->setText(tr("Collapse all"));
    connect(collapse, &QToolButton::clicked, this, &InputsView::collapseAll);

    m_tree->setObjectName(QStringLiteral("inputsTree"));
    m_tree->setModel(m_proxy);
    m_tree->setUniformRowHeights(true); // keeps scrolling fluid with tens of thousands of rows
    m_tree->setAlternatingRowColors(true);
    m_tree->setItemDelegateForColumn(InputsModel::ShapeColumn, new ShapeDelegate(m_tree));
    m_tree->header()->setStretchLastSection(true);
    m_tree->header()->resizeSection(InputsModel::NameColumn, 220);
    m_tree->header()->resizeSection(InputsModel::TypeColumn, 100);
    m_tree->header()->resizeSection(InputsModel::ShapeColumn, 220);
    m_tree->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_tree, &QWidget::customContextMenuRequested, this, [this](const QPoint &pos) {
        const QModelIndex index = m_tree->indexAt(pos);
        const QModelIndex source = m_proxy->mapToSource(index);
        if (!source.isValid() || source.data(InputsModel::ShapePartsRole).toStringList().isEmpty())
            return;
        emit leafContextMenuRequested(source.data(InputsModel::KeyPathRole).toString(), dimAt(index, pos),
                                      m_tree->viewport()->mapToGlobal(pos));
    });
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this, [this](const QModelIndex &current) {
        // While filtering, Qt moves the current row off a hidden one: that is not the
        // user's choice, which is kept to select again when the filter is cleared.
        if (current.isValid() && !m_filtering)
            m_currentPath = m_proxy->mapToSource(current).data(InputsModel::KeyPathRole).toString();
        emit currentNodeChanged(currentNode());
    });
    // However small the window gets, the tree keeps its header and a few rows.
    m_tree->setMinimumSize(fontMetrics().averageCharWidth() * 30, fontMetrics().height() * 8);

    m_filterCount->setObjectName(QStringLiteral("inputsFilterCount"));
    m_filterCount->hide();
    m_noMatch->setObjectName(QStringLiteral("inputsNoMatch"));
    m_noMatch->setAlignment(Qt::AlignCenter);
    m_noMatch->setWordWrap(true);
    m_noMatch->setForegroundRole(QPalette::PlaceholderText);
    m_noMatch->hide();
    m_tree->viewport()->installEventFilter(this); // keeps the message centred

    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(m_filter, 1);
    bar->addWidget(m_filterCount);
    bar->addWidget(expand);
    bar->addWidget(collapse);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_tree, 1);
}

InputsView::~InputsView() = default;

void InputsView::setDocument(ProjectDocument *document)
{
    m_decorator = new InputsDecorator(document, m_model, this);
    // The model forgets its decorations when it is reloaded: decorate again.
    connect(document, &ProjectDocument::captureChanged, this, [this, document] {
        setLoaded(document->loaded());
        m_decorator->refresh();
    });
}

void InputsView::setSelectedDim(const QString &name)
{
    if (m_decorator)
        m_decorator->setSelectedDim(name);
}

void InputsView::setLoaded(const LoadedCapturePtr &loaded)
{
    m_model->setLoaded(loaded);
    // Small trees open fully; large ones only show their arguments, so that a 32-layer
    // cache stays one row until asked for.
    if (loaded && loaded->tree.nodes().size() <= 200) {
        m_tree->expandAll();
    } else {
        for (int r = 0; r < m_proxy->rowCount(); ++r)
            m_tree->expand(m_proxy->index(r, 0));
    }
    // Start on the first leaf whose shape changes between calls: what people open a
    // capture to look at.
    QModelIndex first;
    if (loaded) {
        for (int n = 1; n < loaded->shapes.size() && !first.isValid(); ++n) {
            if (loaded->shapes.at(n).hasDynamicDim())
                first = m_proxy->mapFromSource(m_model->indexForPath(loaded->tree.node(n).path));
        }
    }
    if (first.isValid())
        m_tree->setCurrentIndex(first);
    else
        emit currentNodeChanged(-1);
}

bool InputsView::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_tree->viewport() && event->type() == QEvent::Resize)
        m_noMatch->setGeometry(m_tree->viewport()->rect().adjusted(8, 8, -8, -8));
    if (watched == m_filter && event->type() == QEvent::KeyPress
        && static_cast<QKeyEvent *>(event)->key() == Qt::Key_Escape && !m_filter->text().isEmpty()) {
        m_filter->clear();
        m_filterTimer->stop();
        applyFilter();
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

void InputsView::applyFilter()
{
    const QString text = m_filter->text().trimmed();
    if (text == m_appliedFilter)
        return;
    // What the user had open before filtering comes back when the filter is cleared.
    if (m_appliedFilter.isEmpty())
        m_expandedBeforeFilter = expandedPaths();
    const QString current = m_currentPath;
    m_filtering = true;
    m_proxy->setFilterFixedString(text);
    m_appliedFilter = text;
    if (text.isEmpty())
        expandPaths(m_expandedBeforeFilter);
    else
        m_tree->expandAll();
    selectPath(current);
    m_filtering = false;
    showFilterStatus(text);
}

void InputsView::showFilterStatus(const QString &text)
{
    int leaves = 0, shown = 0;
    if (const LoadedCapturePtr loaded = m_model->loaded()) {
        // A container's key path is a prefix of its leaves' paths, so a leaf is shown
        // exactly when its own path matches.
        for (const AlignedNode &node : loaded->tree.nodes()) {
            if (!node.isLeaf())
                continue;
            ++leaves;
            if (node.path.contains(text, Qt::CaseInsensitive))
                ++shown;
        }
    }
    m_filterCount->setText(tr("%1 of %2 leaves shown").arg(shown).arg(leaves));
    m_filterCount->setVisible(!text.isEmpty());
    m_noMatch->setText(tr("No leaf matches “%1”").arg(text));
    m_noMatch->setGeometry(m_tree->viewport()->rect().adjusted(8, 8, -8, -8));
    m_noMatch->setVisible(!text.isEmpty() && shown == 0 && leaves > 0);
}

QSet<QString> InputsView::expandedPaths() const
{
    QSet<QString> paths;
    const LoadedCapturePtr loaded = m_model->loaded();
    if (!loaded)
        return paths;
    for (const AlignedNode &node : loaded->tree.nodes()) {
        if (node.isLeaf() || node.children.isEmpty())
            continue;
        const QModelIndex index = m_proxy->mapFromSource(m_model->indexForPath(node.path));
        if (index.isValid() && m_tree->isExpanded(index))
            paths.insert(node.path);
    }
    return paths;
}

void InputsView::expandPaths(const QSet<QString> &paths)
{
    m_tree->collapseAll();
    for (const QString &path : paths) {
        const QModelIndex index = m_proxy->mapFromSource(m_model->indexForPath(path));
        if (index.isValid())
            m_tree->expand(index);
    }
}

void InputsView::selectPath(const QString &path)
{
    if (path.isEmpty())
        return;
    const QModelIndex index = m_proxy->mapFromSource(m_model->indexForPath(path));
    if (!index.isValid())
        return; // filtered out: selected again once the filter lets it through
    for (QModelIndex p = index.parent(); p.isValid(); p = p.parent())
        m_tree->expand(p);
    m_tree->setCurrentIndex(index);
    m_tree->scrollTo(index);
}

void InputsView::expandAll() { m_tree->expandAll(); }

void InputsView::collapseAll() { m_tree->collapseAll(); }

void InputsView::focusFilter()
{
    m_filter->setFocus(Qt::ShortcutFocusReason);
    m_filter->selectAll();
}

int InputsView::dimAt(const QModelIndex &index, const QPoint &pos) const
{
    if (!index.isValid())
        return -1;
    const int column = m_tree->columnAt(pos.x());
    const QModelIndex cell = index.siblingAtColumn(column);
    QStringList parts;
    QString separator;
    if (column == InputsModel::ShapeColumn) {
        parts = cell.data(InputsModel::ShapePartsRole).toStringList();
        separator = QStringLiteral(" x ");
    } else if (column == InputsModel::ConstraintColumn) {
        parts = cell.data(InputsModel::DimLabelsRole).toStringList();
        separator = QStringLiteral(", ");
    } else {
        return -1;
    }
    // Mirrors ShapeDelegate's layout (bold parts are a little wider; close enough to
    // hit the part under the cursor).
    QFont bold = m_tree->font();
    bold.setBold(true);
    const QFontMetrics fm(bold);
    const int margin = m_tree->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, m_tree) + 1;
    int x = m_tree->visualRect(cell).left() + margin;
    for (int d = 0; d < parts.size(); ++d) {
        const int end = x + fm.horizontalAdvance(parts.at(d)) + fm.horizontalAdvance(separator) / 2;
        if (pos.x() < end)
            return d;
        x += fm.horizontalAdvance(parts.at(d) + separator);
    }
    return -1;
}

int InputsView::currentNode() const
{
    const QModelIndex source = m_proxy->mapToSource(m_tree->currentIndex());
    return m_model->nodeOf(source);
}

} // namespace dimscope
