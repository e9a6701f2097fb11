// SPDX-License-Identifier: GPL-3.0-or-later
#include "explanationspanel.h"

#include "elidedlabel.h"
#include "models/explanationsmodel.h"
#include "text/sourceexcerpt.h"

#include <QCheckBox>
#include <QDesktopServices>
#include <QDir>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMetaMethod>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTextBlock>
#include <QTreeView>
#include <QUrl>
#include <QVBoxLayout>

namespace dimscope {

ExplanationsPanel::ExplanationsPanel(QWidget *parent)
    : QWidget(parent), m_model(new ExplanationsModel(this)), m_headline(new QLabel(this)),
      m_showAll(new QPushButton(tr("Show All"), this)), m_library(new QCheckBox(tr("Library frames"), this)),
      m_view(new QTreeView(this)), m_source(new QPlainTextEdit(this)), m_sourceTitle(new ElidedLabel(Qt::ElideLeft, this)),
      m_open(new QPushButton(tr("Open in Editor"), this))
{
    setObjectName(QStringLiteral("explanationsPanel"));
    m_headline->setObjectName(QStringLiteral("explanationsHeadline"));
    m_headline->setWordWrap(true);
    m_showAll->setObjectName(QStringLiteral("explanationsShowAll"));
    m_library->setObjectName(QStringLiteral("explanationsLibraryFrames"));
    m_library->setToolTip(tr("Also list the frames in torch, transformers and other installed packages"));
    m_view->setObjectName(QStringLiteral("explanationsView"));
    m_view->setModel(m_model);
    m_view->setUniformRowHeights(true);
    m_view->setAllColumnsShowFocus(true);
    m_view->header()->setStretchLastSection(true);
    m_view->header()->setSectionResizeMode(QHeaderView::Interactive);
    m_source->setObjectName(QStringLiteral("explanationsSource"));
    m_source->setReadOnly(true);
    m_source->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_source->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    // A site-packages path can be wider than the screen: elided from the left, so
    // that the file name and line stay in view, the whole path in the tooltip.
    m_sourceTitle->setObjectName(QStringLiteral("explanationsSourceTitle"));
    m_sourceTitle->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_open->setObjectName(QStringLiteral("explanationsOpenSource"));
    m_open->setEnabled(false);

    auto *top = new QHBoxLayout;
    top->addWidget(m_headline, 1);
    top->addWidget(m_showAll);
    top->addWidget(m_library);
    auto *sourceBox = new QWidget(this);
    auto *sourceLayout = new QVBoxLayout(sourceBox);
    sourceLayout->setContentsMargins(0, 0, 0, 0);
    auto *sourceTop = new QHBoxLayout;
    sourceTop->addWidget(m_sourceTitle, 1);
    sourceTop->addWidget(m_open);
    sourceLayout->addLayout(sourceTop);
    sourceLayout->addWidget(m_source);
    // Two lines each at least, not Qt's 70 px per view: the Why dock shares the right
    // side with the Dims, and the window with every dock must fit a 1366x768 laptop at
    // 125 % (1093x614 logical pixels; issue 28, problem 1).
    const int line = fontMetrics().lineSpacing();
    m_view->setMinimumHeight(m_view->header()->sizeHint().height() + 2 * line + 4);
    m_source->setMinimumHeight(2 * line + 2 * m_source->frameWidth() + 8);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_view);
    split->addWidget(sourceBox);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(split, 1);

    connect(m_library, &QCheckBox::toggled, m_model, &ExplanationsModel::setShowLibraryFrames);
    connect(m_showAll, &QPushButton::clicked, this, [this] { showDim(QString()); });
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        m_view->expandAll();
        updateHeadline();
        if (m_model->rowCount() > 0)
            m_view->setCurrentIndex(m_model->index(0, 0));
        else
            showSourceOf({});
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) { showSourceOf(current); });
    connect(m_open, &QPushButton::clicked, this, [this] {
        if (m_file.isEmpty())
            return;
        if (isSignalConnected(QMetaMethod::fromSignal(&ExplanationsPanel::openSourceRequested)))
            emit openSourceRequested(m_file, m_line);
        else
            QDesktopServices::openUrl(QUrl::fromLocalFile(m_file));
    });
    updateHeadline();
    showSourceOf({});
}

void ExplanationsPanel::setExplanations(const QVector<ShapeExplanation> &explanations)
{
    m_model->setExplanations(explanations);
}

void ExplanationsPanel::showDim(const QString &name) { m_model->setDimFilter(name); }

void ExplanationsPanel::updateHeadline()
{
    const int shown = m_model->rowCount();
    const int all = int(m_model->explanations().size());
    m_showAll->setVisible(!m_model->dimFilter().isEmpty());
    if (all == 0) {
        m_headline->setText(tr("No shape decisions: export to see which dims torch made static, narrowed or tied, and the model line behind each."));
        return;
    }
    if (m_model->dimFilter().isEmpty())
        m_headline->setText(all == 1 ? tr("1 shape decision torch made in the last export.")
                                     : tr("%1 shape decisions torch made in the last export.").arg(all));
    else
        m_headline->setText(tr("%1 of %2 shape decisions involve %3.").arg(shown).arg(all).arg(m_model->dimFilter()));
}

void ExplanationsPanel::showSourceOf(const QModelIndex &index)
{
    const QModelIndex row = index.siblingAtColumn(0);
    m_file = row.isValid() ? row.data(ExplanationsModel::FileRole).toString() : QString();
    m_line = row.isValid() ? row.data(ExplanationsModel::LineRole).toInt() : 0;
    m_open->setEnabled(!m_file.isEmpty());
    m_source->clear();
    if (m_file.isEmpty()) {
        m_sourceTitle->setFullText(row.isValid() ? tr("torch decided this at the inputs, before running the model")
                                                 : QString());
        return;
    }
    m_sourceTitle->setFullText(QStringLiteral("%1:%2").arg(QDir::toNativeSeparators(m_file)).arg(m_line));
    const SourceExcerpt excerpt = SourceExcerpt::read(m_file, m_line);
    if (!excerpt.isValid()) {
        m_source->setPlainText(excerpt.error);
        return;
    }
    m_source->setPlainText(excerpt.toText());
    // The line itself, highlighted and scrolled to.
    const QTextBlock block = m_source->document()->findBlockByNumber(m_line - excerpt.firstLine);
    QTextEdit::ExtraSelection focus;
    focus.format.setBackground(palette().color(QPalette::Highlight).lighter(170));
    focus.format.setProperty(QTextFormat::FullWidthSelection, true);
    focus.cursor = QTextCursor(block);
    m_source->setExtraSelections({focus});
    m_source->setTextCursor(focus.cursor);
    m_source->ensureCursorVisible();
}

} // namespace dimscope
