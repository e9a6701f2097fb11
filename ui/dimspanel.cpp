// SPDX-License-Identifier: GPL-3.0-or-later
#include "dimspanel.h"

#include "tableactions.h"

#include "dimeditdelegate.h"
#include "models/dimsmodel.h"
#include "document/projectdocument.h"
#include "wrappinglabel.h"

#include <QAction>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QScreen>
#include <QScrollBar>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>

namespace dimscope {

DimsPanel::DimsPanel(ProjectDocument *document, QWidget *parent)
    : QWidget(parent), m_model(new DimsModel(document, this)), m_table(new QTableView(this)), m_filter(new QLineEdit(this)),
      m_filterCount(new QLabel(this)), m_problem(new WrappingLabel(this))
{
    setObjectName(QStringLiteral("dimsPanel"));
    setUpFilter();
    setUpTable();
    setUpProblemLabel();
    layOut(makeToolBar());
    followModel(document);
    updateActions();
}

void DimsPanel::setUpFilter()
{
    m_filter->setObjectName(QStringLiteral("dimsFilter"));
    m_filter->setPlaceholderText(tr("Filter Dims"));
    m_filter->setClearButtonEnabled(true);
    m_filter->installEventFilter(this); // Escape clears it
    connect(m_filter, &QLineEdit::textChanged, this, &DimsPanel::applyFilter);
    m_filterCount->setObjectName(QStringLiteral("dimsFilterCount"));
    m_filterCount->hide();
}

void DimsPanel::setUpTable()
{
    m_table->setObjectName(QStringLiteral("dimsTable"));
    TableActions::attach(m_table, tr("Dims")); // Copy (Ctrl+C) and Export as CSV…, as the result tables
    // Tab moves on to the next widget instead of walking the cells (a focus trap:
    // Shift+Tab could not leave the table); arrows move between cells.
    m_table->setTabKeyNavigation(false);
    m_table->setFocusPolicy(Qt::StrongFocus);
    // Header and three rows stay visible however small the dock gets.
    m_table->setMinimumHeight(m_table->horizontalHeader()->sizeHint().height() + 3 * (fontMetrics().height() + 8) + 4);
    m_table->setMinimumWidth(fontMetrics().horizontalAdvance(QLatin1Char('m')) * 24);
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed
                             | QAbstractItemView::AnyKeyPressed);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
    fitColumns();
    m_table->setAlternatingRowColors(true);
    auto *delegate = new DimEditDelegate(this);
    m_table->setItemDelegate(delegate);
    connect(delegate, &DimEditDelegate::editProblem, this, &DimsPanel::showProblem);
}

// Edits the model or the cell editor refused are explained under the table (showProblem).
void DimsPanel::setUpProblemLabel()
{
    m_problem->setObjectName(QStringLiteral("dimsProblem"));
    m_problem->setStyleSheet(QStringLiteral("QLabel { color: #c62828; }"));
    m_problem->hide();
    connect(m_model, &DimsModel::editRejected, this, &DimsPanel::showProblem);
}

// Add, Rename, Delete and Merge…, with the keys of the ones that act on the table.
QToolBar *DimsPanel::makeToolBar()
{
    auto *bar = new QToolBar(this);
    bar->setIconSize(QSize(16, 16));
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_add = bar->addAction(tr("Add"), this, [this] {
        QString name;
        const QString error = m_model->addDim(&name);
        showProblem(error);
        if (error.isEmpty()) {
            selectDim(name);
            m_table->edit(m_model->index(m_model->rowOf(name), DimsModel::NameColumn));
        }
    });
    m_add->setObjectName(QStringLiteral("actionAddDim"));
    m_add->setToolTip(tr("Add a root Dim (assign it to dimensions from the inputs tree)"));
    m_rename = bar->addAction(tr("Rename"), this, [this] {
        const int row = m_model->rowOf(currentDim());
        if (row >= 0)
            m_table->edit(m_model->index(row, DimsModel::NameColumn));
    });
    m_rename->setObjectName(QStringLiteral("actionRenameDim"));
    m_delete = bar->addAction(tr("Delete"), this, [this] {
        const QString name = currentDim();
        if (!name.isEmpty())
            showProblem(m_model->deleteDim(name));
    });
    m_delete->setObjectName(QStringLiteral("actionDeleteDim"));
    // Delete (and Backspace, the Delete key of Mac keyboards) while the table has the
    // focus; an open cell editor takes these keys itself. The actions must belong to the
    // table for that: a toolbar action's widget shortcut only fires in the toolbar.
    m_delete->setShortcuts({QKeySequence(Qt::Key_Delete), QKeySequence(Qt::Key_Backspace)});
    m_delete->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_rename->setShortcut(QKeySequence(Qt::Key_F2));
    m_rename->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_table->addAction(m_delete);
    m_table->addAction(m_rename);
    m_delete->setToolTip(tr("Delete the Dim; the dimensions using it become static"));
    m_merge = bar->addAction(tr("Merge…"), this, &DimsPanel::mergeSelected);
    m_merge->setObjectName(QStringLiteral("actionMergeDims"));
    m_merge->setToolTip(tr("Merge another Dim into the selected one: the other Dim's dimensions use the selected "
                           "Dim, which keeps its name and range, and the other Dim is deleted"));
    return bar;
}

void DimsPanel::layOut(QToolBar *bar)
{
    // Tab goes filter -> table -> on out of the panel (creation order put the table first).
    setTabOrder(m_filter, m_table);
    auto *top = new QHBoxLayout;
    top->setContentsMargins(0, 0, 0, 0);
    top->addWidget(bar);
    top->addWidget(m_filter, 1);
    top->addWidget(m_filterCount);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 0, 4, 4);
    layout->setSpacing(2);
    layout->addLayout(top);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_problem);
}

// The actions and the filter follow the selection, the model and the capture.
void DimsPanel::followModel(ProjectDocument *document)
{
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] {
        updateActions();
        announceSelection();
    });
    // A renamed Dim stays selected (the rename resets the model, which drops the
    // selection; a reset for another document must drop it, issue 28 problem 4).
    connect(m_model, &DimsModel::dimRenamed, this, [this](const QString &, const QString &to) {
        if (currentDim().isEmpty())
            selectDim(to);
    });
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        // New Dims (another capture, a rename, a merge): ask for the width they need
        // when the panel is narrower (the window decides).
        if (m_model->rowCount() > 0 && neededWidth() > width())
            emit wantsWidth(neededWidth());
        applyFilter();
        updateActions();
        // A reset (another document, the selected Dim deleted) drops the current row
        // without currentRowChanged: the Why filter and the tree's tint follow here.
        announceSelection();
    });
    connect(document, &ProjectDocument::captureChanged, this, &DimsPanel::updateActions);
}

DimsPanel::~DimsPanel() = default;

// Dim names are never elided: every column but Status fits its contents (a rename
// refits the name column); Status takes the width left and wraps, up to three lines
// (the whole text in its tooltip).
void DimsPanel::fitColumns()
{
    QHeaderView *header = m_table->horizontalHeader();
    header->setStretchLastSection(true);
    for (int c = 0; c < DimsModel::StatusColumn; ++c)
        header->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    header->setSectionResizeMode(DimsModel::StatusColumn, QHeaderView::Stretch);
    m_table->setWordWrap(true);
    m_table->setTextElideMode(Qt::ElideRight);
    QHeaderView *rows = m_table->verticalHeader();
    rows->setMinimumSectionSize(fontMetrics().height() + 8);
    rows->setMaximumSectionSize(3 * fontMetrics().lineSpacing() + 8);
    rows->setSectionResizeMode(QHeaderView::ResizeToContents);
}

// The width that shows every column whole with Status on one line: the content
// columns as fitted, plus the longest Status (at most 40 characters' worth).
int DimsPanel::neededWidth() const
{
    int width = 2 * m_table->frameWidth() + m_table->verticalScrollBar()->sizeHint().width();
    for (int c = 0; c < DimsModel::StatusColumn; ++c) {
        int column = m_table->horizontalHeader()->sectionSizeHint(c);
        for (int r = 0; r < m_model->rowCount(); ++r)
            column = std::max(column, m_table->sizeHintForIndex(m_model->index(r, c)).width() + 1); // + the grid line
        width += column;
    }
    int status = m_table->horizontalHeader()->sectionSizeHint(DimsModel::StatusColumn);
    for (int r = 0; r < m_model->rowCount(); ++r)
        status = std::max(status, fontMetrics().horizontalAdvance(m_model->index(r, DimsModel::StatusColumn).data().toString()) + 12);
    width += std::min(status, fontMetrics().averageCharWidth() * 40);
    const QMargins margins = layout()->contentsMargins();
    return width + margins.left() + margins.right();
}

void DimsPanel::announceSelection()
{
    const QString name = currentDim();
    if (name == m_announced)
        return;
    m_announced = name;
    emit dimSelected(name);
}

QString DimsPanel::currentDim() const
{
    // A Dim.AUTO row is no Dim: nothing to rename, delete or merge, no Dim to filter by.
    const QModelIndex current = m_table->currentIndex();
    return current.isValid() && !m_model->isAuto(current.row()) ? m_model->dimName(current.row()) : QString();
}

void DimsPanel::selectDim(const QString &name)
{
    const int row = m_model->rowOf(name);
    if (row < 0)
        return;
    m_table->setCurrentIndex(m_model->index(row, DimsModel::NameColumn));
    m_table->selectRow(row);
}

void DimsPanel::showProblem(const QString &text)
{
    m_problem->setText(text);
    m_problem->setVisible(!text.isEmpty());
}

void DimsPanel::updateActions()
{
    const bool has = !currentDim().isEmpty();
    m_rename->setEnabled(has);
    m_delete->setEnabled(has);
    int dims = 0;
    for (int r = 0; r < m_model->rowCount(); ++r)
        dims += m_model->isAuto(r) ? 0 : 1;
    m_merge->setEnabled(has && dims > 1);
    m_add->setEnabled(m_model->document()->hasCapture());
}

void DimsPanel::mergeSelected()
{
    QStringList selected;
    for (const QModelIndex &i : m_table->selectionModel()->selectedRows())
        if (!m_model->isAuto(i.row()))
            selected.append(m_model->dimName(i.row()));
    const QString keep = currentDim();
    QString drop;
    if (selected.size() == 2)
        drop = selected.at(0) == keep ? selected.at(1) : selected.at(0);
    else
        drop = askWhichToMerge(keep);
    if (drop.isEmpty())
        return;
    const QString error = m_model->mergeDims(keep, drop);
    showProblem(error);
    if (error.isEmpty())
        selectDim(keep); // the merge reset the model and with it the selection

}

// The width a window manager's title bar needs for `title` whole: the text in bold
// beside the window's icon and its minimize, maximize and close buttons. A dialog sized
// to its contents alone had "Merge into NAME" cut (issue 28 problem 10). At most the
// screen's width: a longer title elides there.
int DimsPanel::titleBarWidth(const QString &title) const
{
    QFont bold = font();
    bold.setBold(true);
    const int buttons = 4 * 24;
    const int wanted = QFontMetrics(bold).horizontalAdvance(title) + buttons;
    return screen() ? std::min(wanted, screen()->availableGeometry().width() * 9 / 10) : wanted;
}

QString DimsPanel::askWhichToMerge(const QString &keep)
{
    QStringList others;
    for (int r = 0; r < m_model->rowCount(); ++r)
        if (m_model->dimName(r) != keep && !m_model->isAuto(r))
            others.append(m_model->dimName(r));
    QInputDialog dialog(this);
    dialog.setObjectName(QStringLiteral("mergeDimsDialog"));
    dialog.setWindowTitle(tr("Merge into %1").arg(keep));
    dialog.setLabelText(tr("Merge this Dim into '%1':").arg(keep));
    dialog.setComboBoxItems(others);
    dialog.setComboBoxEditable(false);
    dialog.setOkButtonText(tr("Merge"));
    // What happens, in the dialog itself: which Dim goes, which stays, and with which range.
    auto *consequence = new WrappingLabel(&dialog);
    consequence->setObjectName(QStringLiteral("mergeConsequence"));
    const auto explain = [consequence, keep](const QString &drop) {
        consequence->setText(tr("Every dimension that uses '%1' will use '%2' instead, and '%1' is deleted. '%2' keeps "
                                "its name and range; Dims derived from '%1' are derived from '%2'. Undo restores both.")
                                 .arg(drop, keep));
    };
    explain(others.value(0));
    connect(&dialog, &QInputDialog::textValueChanged, consequence, explain);
    // Between the choice and the buttons (QInputDialog's layout is a QVBoxLayout). Its
    // width is the dialog's: QInputDialog's layout (SetMinAndMaxSize) overrides a minimum
    // width set on the dialog itself.
    const int width = std::max(fontMetrics().averageCharWidth() * 60, titleBarWidth(dialog.windowTitle()));
    if (auto *box = qobject_cast<QBoxLayout *>(dialog.layout())) {
        box->insertWidget(box->count() - 1, consequence);
        consequence->setMinimumWidth(width - box->contentsMargins().left() - box->contentsMargins().right());
    }
    if (dialog.exec() != QDialog::Accepted)
        return {};
    return dialog.textValue();
}

void DimsPanel::focusTable()
{
    m_table->setFocus(Qt::ShortcutFocusReason);
    if (!m_table->currentIndex().isValid() && m_model->rowCount() > 0)
        selectDim(m_model->dimName(0));
}

void DimsPanel::applyFilter()
{
    const QString text = m_filter->text().trimmed();
    int shown = 0;
    for (int r = 0; r < m_model->rowCount(); ++r) {
        const bool match = text.isEmpty() || m_model->dimName(r).contains(text, Qt::CaseInsensitive);
        m_table->setRowHidden(r, !match);
        shown += match ? 1 : 0;
    }
    m_filterCount->setText(shown == 0 ? tr("No Dim matches “%1”").arg(text)
                                      : tr("%1 of %2 shown").arg(shown).arg(m_model->rowCount()));
    m_filterCount->setVisible(!text.isEmpty());
}

bool DimsPanel::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_filter && event->type() == QEvent::KeyPress
        && static_cast<QKeyEvent *>(event)->key() == Qt::Key_Escape && !m_filter->text().isEmpty()) {
        m_filter->clear();
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace dimscope
