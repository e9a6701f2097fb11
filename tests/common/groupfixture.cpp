// SPDX-License-Identifier: GPL-3.0-or-later
#include "groupfixture.h"

#include "inference/dimgrouping.h"
#include "inference/dimgroupnames.h"
#include "inference/dynamicdims.h"

#include <QStringList>

namespace dimscope::test {

InferenceOptions optionsFor(const QString &mode)
{
    InferenceOptions o;
    if (mode == QLatin1String("all"))
        o.mode = InferenceOptions::Mode::AllDynamic;
    else if (mode == QLatin1String("batch:all"))
        o.batchForAll = true;
    else if (mode.startsWith(QLatin1String("batch:")))
        o.batchFor = mode.mid(6).split(QLatin1Char(','));
    return o;
}

QVector<DimGroup> namedGroups(const ShapeTable &table, const InferenceOptions &options)
{
    QVector<DimGroup> groups = groupDynamicDims(table, DynamicDims::find(table, options), options.forcesSomeBatch());
    nameDimGroups(table, &groups);
    return groups;
}

QString describeMembers(const ShapeTable &table, const DimGroup &group)
{
    QStringList members;
    for (int r : group.rows)
        members << QStringLiteral("%1:%2").arg(table.leaf(table.leafOfRow(r)).path).arg(table.dimOfRow(r));
    return members.join(QLatin1Char(' '));
}

QString describeGroups(const ShapeTable &table, const QVector<DimGroup> &groups)
{
    QStringList out;
    for (const DimGroup &g : groups)
        out << QStringLiteral("%1(%2)").arg(g.name, describeMembers(table, g));
    return out.join(QStringLiteral(" | "));
}

int groupNamed(const QVector<DimGroup> &groups, const QString &name)
{
    for (int i = 0; i < groups.size(); ++i) {
        if (groups[i].name == name)
            return i;
    }
    return -1;
}

} // namespace dimscope::test
