// SPDX-License-Identifier: GPL-3.0-or-later
#include "deriveddimdialog.h"

#include "document/projectdocument.h"
#include "inference/dimnaming.h"
#include "wrappinglabel.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSet>
#include <QSpinBox>

namespace dimscope {

DerivedDimDialog::DerivedDimDialog(const ProjectDocument *document, const QString &path, int dim, QWidget *parent)
    : QDialog(parent), m_document(document), m_name(new QLineEdit(this)), m_root(new QComboBox(this)),
      m_a(new QSpinBox(this)), m_b(new QSpinBox(this)), m_fit(new WrappingLabel(this)),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this))
{
    setObjectName(QStringLiteral("derivedDimDialog"));
    // The title stays short (a window manager cuts long titles); the leaf, which can be
    // a long key path, is said in the dialog, wrapped.
    setWindowTitle(tr("Derived Dim"));
    auto *about = new WrappingLabel(this);
    about->setObjectName(QStringLiteral("derivedDimFor"));
    about->setText(tr("A Dim for %1 dim %2 that is A × a root Dim + B in every call.").arg(path).arg(dim));
    const ShapeTable &table = document->table();
    const int li = table.indexOf(path);
    if (li >= 0 && dim < table.leaf(li).rank) {
        const qint64 *row = table.row(table.leaf(li).firstDim + dim);
        m_values = QVector<qint64>(row, row + table.callCount());
    }
    QSet<QString> taken;
    for (const DimDecl &d : document->constraints().dims()) {
        taken.insert(d.name);
        if (!d.isDerived())
            m_root->addItem(d.name);
    }
    m_name->setText(DimNaming::claimUnique(DimNaming::fallbackName(path, dim), &taken));
    m_a->setRange(1, 1 << 20);
    m_b->setRange(-(1 << 20), 1 << 20);
    m_fit->setObjectName(QStringLiteral("derivedDimFit"));

    // Propose the first root with an exact a*root + b over every call.
    for (int r = 0; r < m_root->count(); ++r) {
        const QVector<qint64> rv = rootValues(m_root->itemText(r));
        int c0 = -1, c1 = -1;
        for (int c = 0; c < m_values.size(); ++c) {
            if (m_values[c] < 0 || rv.value(c, -1) < 0)
                continue;
            if (c0 < 0)
                c0 = c;
            else if (rv[c] != rv[c0]) {
                c1 = c;
                break;
            }
        }
        if (c0 < 0 || c1 < 0)
            continue;
        const qint64 dv = m_values[c1] - m_values[c0], dr = rv[c1] - rv[c0];
        if (dv % dr != 0 || dv / dr <= 0)
            continue;
        const qint64 a = dv / dr, b = m_values[c0] - a * rv[c0];
        bool fits = true;
        for (int c = 0; c < m_values.size() && fits; ++c)
            fits = m_values[c] < 0 || rv.value(c, -1) < 0 || m_values[c] == a * rv[c] + b;
        if (fits) {
            m_root->setCurrentIndex(r);
            m_a->setValue(int(a));
            m_b->setValue(int(b));
            break;
        }
    }

    auto *form = new QFormLayout(this);
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    form->addRow(about);
    form->addRow(tr("Name:"), m_name);
    form->addRow(tr("Root Dim:"), m_root);
    form->addRow(tr("A (multiplier):"), m_a);
    form->addRow(tr("B (offset):"), m_b);
    form->addRow(m_fit);
    form->addRow(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_name, &QLineEdit::textChanged, this, &DerivedDimDialog::check);
    connect(m_root, &QComboBox::currentTextChanged, this, &DerivedDimDialog::check);
    connect(m_a, qOverload<int>(&QSpinBox::valueChanged), this, &DerivedDimDialog::check);
    connect(m_b, qOverload<int>(&QSpinBox::valueChanged), this, &DerivedDimDialog::check);
    // Wide enough for a key path and a line of misfits; the labels wrap the rest. (On a
    // child: a minimum size on the dialog itself would stop its layout from setting the
    // height the wrapped labels need.)
    about->setMinimumWidth(fontMetrics().averageCharWidth() * 56);
    check();
}

QString DerivedDimDialog::name() const { return m_name->text().trimmed(); }
QString DerivedDimDialog::root() const { return m_root->currentText(); }
qint64 DerivedDimDialog::a() const { return m_a->value(); }
qint64 DerivedDimDialog::b() const { return m_b->value(); }

// The root's value per call, read from any leaf dimension that uses it.
QVector<qint64> DerivedDimDialog::rootValues(const QString &root) const
{
    const ShapeTable &table = m_document->table();
    for (const LeafConstraint &leaf : m_document->constraints().leaves()) {
        const int li = table.indexOf(leaf.path);
        for (int d = 0; li >= 0 && d < leaf.dims.size() && d < table.leaf(li).rank; ++d) {
            if (leaf.dims[d].isNamed() && leaf.dims[d].dim == root) {
                const qint64 *row = table.row(table.leaf(li).firstDim + d);
                return QVector<qint64>(row, row + table.callCount());
            }
        }
    }
    return {};
}

void DerivedDimDialog::check()
{
    QString problem = dimname::whyInvalid(name());
    if (problem.isEmpty() && m_document->constraints().dim(name()))
        problem = tr("a Dim named '%1' exists already").arg(name());
    if (problem.isEmpty() && root().isEmpty())
        problem = tr("there is no root Dim to derive from; add one first");
    QString fit;
    if (problem.isEmpty()) {
        const QVector<qint64> rv = rootValues(root());
        QStringList misses;
        for (int c = 0; c < m_values.size(); ++c) {
            if (m_values[c] < 0 || rv.value(c, -1) < 0)
                continue;
            const qint64 expected = a() * rv[c] + b();
            if (expected != m_values[c])
                misses.append(tr("call %1: %2 ≠ %3").arg(c).arg(m_values[c]).arg(expected));
        }
        fit = misses.isEmpty() ? tr("Fits every captured call.")
                               : tr("Does not fit %1 call(s): %2").arg(misses.size()).arg(misses.mid(0, 3).join(QStringLiteral("; "))
                                                                                  + (misses.size() > 3 ? QStringLiteral("; …") : QString()));
    }
    m_fit->setText(problem.isEmpty() ? fit : problem);
    m_fit->setStyleSheet(problem.isEmpty() && fit.startsWith(tr("Fits")) ? QString() : QStringLiteral("QLabel { color: #c62828; }"));
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(problem.isEmpty());
    // A longer message needs more lines: grow rather than cut it.
    if (isVisible() && layout() && height() < layout()->totalHeightForWidth(width()))
        resize(width(), layout()->totalHeightForWidth(width()));
}

} // namespace dimscope
