// SPDX-License-Identifier: GPL-3.0-or-later
#include "spec/specdialect.h"

#include <QCoreApplication>

namespace dimscope {

QVector<SpecDialect> SpecDialects::all()
{
    return {SpecDialect::NamedDims, SpecDialect::DimHints, SpecDialect::ShapesCollection, SpecDialect::AdditionalInputs};
}

QString SpecDialects::name(SpecDialect dialect)
{
    switch (dialect) {
    case SpecDialect::NamedDims: return QStringLiteral("named");
    case SpecDialect::DimHints: return QStringLiteral("hints");
    case SpecDialect::ShapesCollection: return QStringLiteral("shapes-collection");
    case SpecDialect::AdditionalInputs: return QStringLiteral("additional-inputs");
    }
    return {};
}

std::optional<SpecDialect> SpecDialects::fromName(const QString &name)
{
    for (SpecDialect d : all()) {
        if (SpecDialects::name(d) == name)
            return d;
    }
    return std::nullopt;
}

QString SpecDialects::label(SpecDialect dialect)
{
    switch (dialect) {
    case SpecDialect::NamedDims: return QCoreApplication::translate("SpecDialects", "Named Dims");
    case SpecDialect::DimHints: return QCoreApplication::translate("SpecDialects", "Dim.DYNAMIC / Dim.AUTO");
    case SpecDialect::ShapesCollection: return QCoreApplication::translate("SpecDialects", "ShapesCollection");
    case SpecDialect::AdditionalInputs: return QCoreApplication::translate("SpecDialects", "AdditionalInputs");
    }
    return {};
}

} // namespace dimscope
