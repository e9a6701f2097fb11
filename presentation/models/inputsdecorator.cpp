// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/inputsdecorator.h"

#include "models/dimcolours.h"
#include "document/exportresults.h"
#include "models/inputsmodel.h"
#include "document/projectdocument.h"

#include <QSet>

namespace dimscope {

InputsDecorator::InputsDecorator(ProjectDocument *document, InputsModel *model, QObject *parent)
    : QObject(parent), m_document(document), m_model(model)
{
    connect(document, &ProjectDocument::constraintsChanged, this, [this] {
        applyConstraints();
        applyExplanations(); // they name Dims: a rename or a new use changes the leaves
        applyHighlight();
    });
    connect(document, &ProjectDocument::validationChanged, this, &InputsDecorator::applyValidation);
    connect(document->exportResults(), &ExportResults::changed, this, &InputsDecorator::applyExplanations);
}

void InputsDecorator::refresh()
{
    applyConstraints();
    applyValidation();
    applyExplanations();
    applyHighlight();
}

void InputsDecorator::setSelectedDim(const QString &name)
{
    m_selectedDim = name;
    applyHighlight();
}

namespace {
// Whether leaf dimension `dim` of `path` has different sizes in the captured calls.
bool sizeVaries(const ShapeTable &table, const QString &path, int dim)
{
    const int li = table.indexOf(path);
    if (li < 0 || dim >= table.leaf(li).rank)
        return false;
    return table.rowVaries(table.leaf(li).firstDim + dim);
}
} // namespace

QString InputsDecorator::staticVaryingLabel() { return tr("static (varies)"); }

void InputsDecorator::applyConstraints()
{
    const ConstraintSet &set = m_document->constraints();
    const DimColours &colours = m_document->dimColours();
    const ShapeTable &table = m_document->table();
    QHash<QString, QStringList> labels;
    QHash<QString, QVector<QColor>> dimColours;
    for (const LeafConstraint &leaf : set.leaves()) {
        QStringList l;
        QVector<QColor> c;
        for (int d = 0; d < leaf.dims.size(); ++d) {
            const DimAssignment &a = leaf.dims.at(d);
            // A static dim whose size changes between calls is grey and says so (it
            // was drawn in the "dynamic" orange, which is also a Dim's colour); other
            // static dims stay plain; AUTO / DYNAMIC get a colour no Dim has.
            const bool staticVarying = a.isStatic() && sizeVaries(table, leaf.path, d);
            l.append(staticVarying ? staticVaryingLabel() : a.toString());
            c.append(a.isNamed()       ? colours.colour(a.dim)
                     : staticVarying   ? DimColours::staticVaryingColour()
                     : a.isStatic()    ? QColor()
                                       : DimColours::unnamedDynamicColour());
        }
        labels.insert(leaf.path, l);
        dimColours.insert(leaf.path, c);
    }
    m_model->setDimLabels(labels);
    m_model->setDimColours(dimColours);
}

void InputsDecorator::applyValidation()
{
    QHash<QString, QStringList> byLeaf;
    const ValidationReport &report = m_document->validation();
    for (const ConstraintViolation &v : report.violations) {
        if (v.path.isEmpty())
            continue;
        QStringList &list = byLeaf[v.path];
        if (list.size() < 10)
            list.append(QStringLiteral("[%1] %2").arg(ConstraintViolation::ruleName(v.rule), v.message));
        else if (list.size() == 10)
            list.append(tr("…"));
    }
    m_model->setViolations(byLeaf);
}

void InputsDecorator::applyExplanations()
{
    QHash<QString, QStringList> byLeaf;
    const QVector<ShapeExplanation> &all = m_document->exportResults()->explanations();
    if (!all.isEmpty()) {
        for (const LeafConstraint &leaf : m_document->constraints().leaves()) {
            QStringList lines;
            for (const DimAssignment &a : leaf.dims) {
                if (!a.isNamed())
                    continue;
                for (const ShapeExplanation &e : ShapeExplanation::about(all, a.dim)) {
                    const QString line = e.toText().section(QLatin1Char('\n'), 0, 0);
                    if (!lines.contains(line) && lines.size() < 8)
                        lines << line;
                }
            }
            if (!lines.isEmpty())
                byLeaf.insert(leaf.path, lines);
        }
    }
    m_model->setExplanations(byLeaf);
}

void InputsDecorator::applyHighlight()
{
    QSet<QString> paths;
    if (!m_selectedDim.isEmpty()) {
        for (const LeafConstraint &leaf : m_document->constraints().leaves()) {
            for (const DimAssignment &a : leaf.dims)
                if (a.isNamed() && a.dim == m_selectedDim)
                    paths.insert(leaf.path);
        }
    }
    m_model->setHighlighted(paths, m_document->dimColours().colour(m_selectedDim));
}

} // namespace dimscope
