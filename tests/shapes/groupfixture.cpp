#include "groupfixture.h"

#include "shapes/dimgrouping.h"
#include "shapes/dimgroupnames.h"
#include "shapes/dynamicdims.h"

#include <QStringList>

namespace dimscope::test {

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
