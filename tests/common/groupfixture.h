// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "inference/dimgroup.h"
#include "inference/inferenceoptions.h"
#include "inference/shapetable.h"

#include <QString>

namespace dimscope::test {

// Options from a table column: "observed", "all" (all dynamic), "batch:all", or
// "batch:NAME,NAME" (dim 0 forced dynamic for those inputs or leaves).
InferenceOptions optionsFor(const QString &mode);
// The groups ShapeInference starts from, for the tests of its later steps: the
// dynamic dims of `table`, grouped and named.
QVector<DimGroup> namedGroups(const ShapeTable &table, const InferenceOptions &options = {});
// "x:0 y:1" : a group's members as leaf:dim.
QString describeMembers(const ShapeTable &table, const DimGroup &group);
// "batch(x:0 y:0) | seq_len(x:1)" : every group, in order, with its name.
QString describeGroups(const ShapeTable &table, const QVector<DimGroup> &groups);
// The index of the group named `name`, -1 when there is none.
int groupNamed(const QVector<DimGroup> &groups, const QString &name);

} // namespace dimscope::test
