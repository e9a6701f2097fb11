// SPDX-License-Identifier: GPL-3.0-or-later
#include "pt2programview.h"

#include "warningcolour.h"
#include "models/pt2inputsmodel.h"
#include "text/rangetext.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTabBar>
#include "tableactions.h"
#include "wrappinglabel.h"

#include <QTableView>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace dimscope {

Pt2ProgramView::Pt2ProgramView(QWidget *parent)
    : QWidget(parent), m_tabs(new QTabBar(this)), m_summary(new QLabel(this)), m_model(new Pt2InputsModel(this)), m_inputs(new QTableView(this)),
      m_ranges(new QTreeWidget(this)), m_problems(new QLabel(this))
{
    m_tabs->setObjectName(QStringLiteral("pt2ProgramTabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->setExpanding(false);
    m_tabs->hide();
    connect(m_tabs, &QTabBar::currentChanged, this, [this](int index) {
        if (index >= 0 && index < m_programs.size())
            showProgram(m_programs.at(index), Pt2DimMapper::recorded(m_programs.at(index)));
    });
    m_summary->setObjectName(QStringLiteral("pt2Summary"));
    m_summary->setWordWrap(true);
    WrappingLabel::neverWidens(m_summary);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_inputs->setObjectName(QStringLiteral("pt2Inputs"));
    m_inputs->setModel(m_model);
    m_inputs->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_inputs->verticalHeader()->hide();
    m_inputs->horizontalHeader()->setStretchLastSection(true);
    m_inputs->setWordWrap(false);
    m_ranges->setObjectName(QStringLiteral("pt2Ranges"));
    m_ranges->setHeaderLabels({tr("Symbol"), tr("Dim"), tr("Range")});
    m_ranges->setRootIsDecorated(false);
    TableActions::attach(m_inputs, tr("Program inputs"));
    TableActions::attach(m_ranges, tr("Range constraints"));
    m_problems->setObjectName(QStringLiteral("pt2Problems"));
    m_problems->setWordWrap(true);
    WrappingLabel::neverWidens(m_problems);
    WarningColour::apply(m_problems, true);
    m_problems->hide();

    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_inputs);
    split->addWidget(m_ranges);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tabs);
    layout->addWidget(m_summary);
    layout->addWidget(m_problems);
    layout->addWidget(split, 1);
}

void Pt2ProgramView::setProgram(const Pt2Program &program, const std::optional<Pt2DimMapping> &mapping)
{
    m_programs.clear();
    m_tabs->hide();
    showProgram(program, mapping);
}

void Pt2ProgramView::setPrograms(const QVector<Pt2Program> &programs)
{
    m_programs = programs;
    {
        const QSignalBlocker quiet(m_tabs);
        while (m_tabs->count() > 0)
            m_tabs->removeTab(0);
        for (const Pt2Program &p : programs) {
            const int tab = m_tabs->addTab(p.modelName.isEmpty() ? QStringLiteral("model") : p.modelName);
            m_tabs->setTabToolTip(tab, tr("Program %1 of %2").arg(m_tabs->tabText(tab), p.filePath));
        }
        m_tabs->setCurrentIndex(0);
    }
    // One program needs no tab; several are each a tab (issue 28 problem 10: only the
    // first was shown).
    m_tabs->setVisible(programs.size() > 1);
    if (programs.isEmpty())
        clear();
    else
        showProgram(programs.first(), Pt2DimMapper::recorded(programs.first()));
}

void Pt2ProgramView::showProgram(const Pt2Program &program, const std::optional<Pt2DimMapping> &mapping)
{
    m_model->setProgram(program, mapping);
    m_inputs->resizeColumnsToContents();
    const int params = program.countState(Pt2StateInput::Kind::Parameter);
    const int buffers = program.countState(Pt2StateInput::Kind::Buffer);
    m_summary->setText(tr("<b>%1</b> — %2%3 · %4 inputs, %5 parameters, %6 buffers, %7 outputs")
                           .arg(QFileInfo(program.filePath).fileName().toHtmlEscaped(), program.layoutName().toHtmlEscaped(),
                                program.torchVersion.isEmpty() ? QString() : tr(", torch %1").arg(program.torchVersion))
                           .arg(program.inputs.size())
                           .arg(params)
                           .arg(buffers)
                           .arg(program.outputs.size()));
    m_summary->setToolTip(program.filePath);
    m_ranges->clear();
    for (const Pt2Range &r : program.ranges) {
        const QString named = mapping ? mapping->namedExpression(r.expr) : r.expr.toString();
        const QString range = RangeText::range(r.min, r.max); // the CLI and the .pt2 keep torch's "oo"
        auto *item = new QTreeWidgetItem(m_ranges, {r.key, named == r.key ? QString() : named, range});
        item->setToolTip(2, tr("torch's range for %1 (%2 = unbounded)").arg(r.key, RangeText::infinity()));
    }
    // Every column whole: the range ("[0, 8192]") was cut at the tree's default width.
    for (int column = 0; column < m_ranges->columnCount(); ++column)
        m_ranges->resizeColumnToContents(column);
    QStringList problems = program.warnings;
    if (mapping) {
        problems += mapping->problems;
        if (m_model->flaggedCount() > 0)
            problems.prepend(tr("%n dim(s) you wanted dynamic came out static (red below).", nullptr, m_model->flaggedCount()));
    }
    m_problems->setText(problems.join(QLatin1Char('\n')));
    m_problems->setVisible(!problems.isEmpty());
}

void Pt2ProgramView::clear()
{
    m_programs.clear();
    m_tabs->hide();
    m_model->clear();
    m_ranges->clear();
    m_summary->clear();
    m_problems->hide();
}

} // namespace dimscope
