// SPDX-License-Identifier: GPL-3.0-or-later
#include "pt2/pt2dimmapper.h"

#include "pt2/pt2treespec.h"

#include <QRegularExpression>
#include <QSet>

namespace dimscope {

namespace {

bool isStaticEntry(const QString &e) { return e.isEmpty() || e == QLatin1String("static"); }
bool isUnnamedDynamic(const QString &e) { return e == QLatin1String("auto") || e == QLatin1String("dynamic"); }

QString where(const Pt2UserInput &in, int dim)
{
    return QStringLiteral("%1[%2]").arg(in.path.isEmpty() ? in.name : in.path).arg(dim);
}

// Pairs each program input with a user leaf: by in_spec key path, then by placeholder
// name, then the rest in order when both sides have the same number left.
void matchInputs(const Pt2Program &program, const QStringList &leafPaths, Pt2DimMapping *m)
{
    QHash<QString, QString> byName;
    for (const QString &leaf : leafPaths) {
        const QString name = Pt2TreeSpec::placeholderName(leaf);
        if (!byName.contains(name))
            byName.insert(name, leaf);
    }
    QSet<QString> used;
    for (int i = 0; i < program.inputs.size(); ++i) {
        const Pt2UserInput &in = program.inputs.at(i);
        Pt2DimMapping::Input entry;
        entry.input = i;
        entry.name = in.name;
        if (!in.path.isEmpty() && leafPaths.contains(in.path) && !used.contains(in.path)) {
            entry.leafPath = in.path;
            entry.matchedBy = QStringLiteral("path");
        } else if (byName.contains(in.name) && !used.contains(byName.value(in.name))) {
            entry.leafPath = byName.value(in.name);
            entry.matchedBy = QStringLiteral("name");
        }
        if (!entry.leafPath.isEmpty())
            used.insert(entry.leafPath);
        m->inputs << entry;
    }
    QStringList freeLeaves;
    for (const QString &leaf : leafPaths) {
        if (!used.contains(leaf))
            freeLeaves << leaf;
    }
    QVector<int> freeInputs;
    for (int i = 0; i < m->inputs.size(); ++i) {
        if (m->inputs.at(i).leafPath.isEmpty())
            freeInputs << i;
    }
    if (!freeInputs.isEmpty() && freeInputs.size() == freeLeaves.size()) {
        for (int k = 0; k < freeInputs.size(); ++k) {
            m->inputs[freeInputs.at(k)].leafPath = freeLeaves.at(k);
            m->inputs[freeInputs.at(k)].matchedBy = QStringLiteral("position");
        }
        freeLeaves.clear();
    }
    m->unmatchedLeaves = freeLeaves;
    for (const Pt2DimMapping::Input &entry : m->inputs) {
        const Pt2UserInput &in = program.inputs.at(entry.input);
        if (entry.leafPath.isEmpty() && in.kind == Pt2UserInput::Kind::Tensor)
            m->problems << QStringLiteral("program input %1 matches none of the given leaves").arg(in.name);
    }
}

void addUnique(QStringList *list, const QString &value)
{
    if (!list->contains(value))
        list->append(value);
}

} // namespace

QString Pt2DimMapping::namedSize(const SymSize &size) const
{
    return size.isStatic ? QString::number(size.value) : namedExpression(size.expr);
}

QString Pt2DimMapping::namedExpression(const SymExpr &expr) const
{
    const QString torch = expr.toString();
    // One pass over torch's identifiers, whole tokens only (s1 must not hit s10).
    static const QRegularExpression symbol(QStringLiteral("[A-Za-z_][A-Za-z0-9_]*"));
    QString named;
    qsizetype done = 0;
    for (QRegularExpressionMatchIterator it = symbol.globalMatch(torch); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        const QString dim = symbolToDim.value(m.captured());
        named += QStringView(torch).mid(done, m.capturedStart() - done);
        named += dim.isEmpty() ? m.captured() : dim;
        done = m.capturedEnd();
    }
    named += QStringView(torch).mid(done);
    const QStringList aliases = expressionNames.value(torch);
    return aliases.isEmpty() ? named : QStringLiteral("%1 = %2").arg(aliases.join(QStringLiteral(" = ")), named);
}

QString Pt2DimMapping::statusName(Dim::Status s)
{
    switch (s) {
    case Dim::Status::Static: return QStringLiteral("static");
    case Dim::Status::Symbolic: return QStringLiteral("symbolic");
    case Dim::Status::Specialized: return QStringLiteral("specialized");
    case Dim::Status::UnexpectedDynamic: return QStringLiteral("unexpected_dynamic");
    }
    return QString();
}

std::optional<Pt2DimMapping> Pt2DimMapper::recorded(const Pt2Program &program)
{
    if (program.recordedDimNames.isEmpty())
        return std::nullopt;
    Pt2DimMapping m;
    m.symbolToDim = program.recordedDimNames;
    return m;
}

Pt2DimMapping Pt2DimMapper::map(const Pt2Program &program, const QStringList &leafPaths,
                                const QHash<QString, QStringList> &leafDims,
                                const QHash<QString, Pt2DerivedDim> &derived)
{
    Pt2DimMapping m;
    matchInputs(program, leafPaths, &m);

    QMap<QString, QStringList> candidates; // symbol -> names, in first-seen order
    for (Pt2DimMapping::Input &entry : m.inputs) {
        const Pt2UserInput &in = program.inputs.at(entry.input);
        if (in.kind != Pt2UserInput::Kind::Tensor)
            continue;
        const QStringList intended = leafDims.value(entry.leafPath);
        if (!entry.leafPath.isEmpty() && intended.size() > in.tensor.sizes.size())
            m.problems << QStringLiteral("%1: %2 Dim entries for a tensor of rank %3")
                              .arg(entry.leafPath).arg(intended.size()).arg(in.tensor.sizes.size());
        for (int d = 0; d < in.tensor.sizes.size(); ++d) {
            Pt2DimMapping::Dim dim;
            dim.size = in.tensor.sizes.at(d);
            dim.intended = d < intended.size() ? intended.at(d).trimmed() : QString();
            const bool named = !isStaticEntry(dim.intended) && !isUnnamedDynamic(dim.intended);
            if (dim.size.isStatic) {
                const bool wanted = named || dim.intended == QLatin1String("dynamic");
                dim.status = wanted ? Pt2DimMapping::Dim::Status::Specialized : Pt2DimMapping::Dim::Status::Static;
                if (wanted)
                    m.problems << QStringLiteral("%1: %2 was specialized to %3")
                                      .arg(where(in, d), named ? dim.intended : QStringLiteral("Dim.DYNAMIC"))
                                      .arg(dim.size.value);
            } else if (isStaticEntry(dim.intended)) {
                dim.status = Pt2DimMapping::Dim::Status::UnexpectedDynamic;
                m.problems << QStringLiteral("%1: %2 in the program, static in the constraints")
                                  .arg(where(in, d), dim.size.toString());
            } else {
                dim.status = Pt2DimMapping::Dim::Status::Symbolic;
                const SymExpr &e = dim.size.expr;
                if (named && e.isBareSymbol()) {
                    addUnique(&candidates[e.symbols().first()], dim.intended);
                } else if (named && e.isAffine() && derived.contains(dim.intended)) {
                    const Pt2DerivedDim dd = derived.value(dim.intended);
                    const QString sym = e.symbols().first();
                    if (e.terms().value(sym) == dd.a && e.constantTerm() == dd.b)
                        addUnique(&candidates[sym], dd.root);
                    else
                        m.problems << QStringLiteral("%1: %2 is %3*%4 + %5 in the constraints but %6 in the program")
                                          .arg(where(in, d), dim.intended).arg(dd.a).arg(dd.root).arg(dd.b)
                                          .arg(e.toString());
                } else if (named) {
                    addUnique(&m.expressionNames[e.toString()], dim.intended);
                }
            }
            entry.dims << dim;
        }
    }
    for (auto it = candidates.cbegin(); it != candidates.cend(); ++it) {
        m.symbolToDim.insert(it.key(), it.value().first());
        if (it.value().size() > 1) {
            m.symbolConflicts.insert(it.key(), it.value());
            m.problems << QStringLiteral("%1 stands for several Dims: %2 (torch found them equal)")
                              .arg(it.key(), it.value().join(QLatin1String(", ")));
        }
        for (const QString &name : it.value())
            addUnique(&m.dimToSymbols[name], it.key());
    }
    return m;
}

QMap<QString, QVector<Pt2DimUse>> Pt2DimMapper::symbolUses(const Pt2Program &program)
{
    QMap<QString, QVector<Pt2DimUse>> uses;
    for (int i = 0; i < program.inputs.size(); ++i) {
        const Pt2UserInput &in = program.inputs.at(i);
        if (in.kind != Pt2UserInput::Kind::Tensor)
            continue;
        for (int d = 0; d < in.tensor.sizes.size(); ++d) {
            const SymSize &s = in.tensor.sizes.at(d);
            if (s.isStatic)
                continue;
            for (const QString &sym : s.expr.symbols())
                uses[sym] << Pt2DimUse{i, d, in.name, in.path, s.expr};
        }
    }
    return uses;
}

} // namespace dimscope
