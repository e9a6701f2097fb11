// SPDX-License-Identifier: GPL-3.0-or-later
#include "pt2/pt2program.h"

#include "pt2/torchrangetext.h"

namespace dimscope {

QString Pt2TensorMeta::shapeString() const
{
    QStringList dims;
    dims.reserve(sizes.size());
    for (const SymSize &s : sizes)
        dims << s.toString();
    return dtype + QLatin1Char('[') + dims.join(QLatin1String(", ")) + QLatin1Char(']');
}

QString Pt2StateInput::kindName(Kind k)
{
    switch (k) {
    case Kind::Parameter: return QStringLiteral("parameter");
    case Kind::Buffer: return QStringLiteral("buffer");
    case Kind::TensorConstant: return QStringLiteral("tensor_constant");
    case Kind::CustomObj: return QStringLiteral("custom_obj");
    case Kind::Token: return QStringLiteral("token");
    }
    return QString();
}

QString Pt2Range::toString() const
{
    return TorchRangeText::range(min, max);
}

QString Pt2Program::layoutName() const
{
    return layout == Pt2Layout::Legacy ? QStringLiteral("torch 2.5-2.7 (serialized_exported_program.json)")
                                       : QStringLiteral("PT2 archive (torch 2.8+)");
}

QStringList Pt2Program::inputSymbols() const
{
    QStringList out;
    auto collect = [&out](const SymSize &s) {
        if (s.isStatic)
            return;
        for (const QString &sym : s.expr.symbols()) {
            if (!out.contains(sym))
                out << sym;
        }
    };
    for (const Pt2UserInput &in : inputs) {
        if (in.kind == Pt2UserInput::Kind::Tensor) {
            for (const SymSize &s : in.tensor.sizes)
                collect(s);
        } else if (in.symInt) {
            collect(*in.symInt);
        }
    }
    return out;
}

std::optional<Pt2Range> Pt2Program::rangeOf(const SymExpr &expr) const
{
    for (const Pt2Range &r : ranges) {
        if (r.expr == expr)
            return r;
    }
    return std::nullopt;
}

int Pt2Program::countState(Pt2StateInput::Kind kind) const
{
    int n = 0;
    for (const Pt2StateInput &s : state)
        n += s.kind == kind ? 1 : 0;
    return n;
}

} // namespace dimscope
