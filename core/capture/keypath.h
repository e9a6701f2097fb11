// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "capture/capture.h"

#include <QString>
#include <QStringList>

namespace dimscope {

// Key paths (docs/capture-format.md, "Nodes"): the path of a node follows from the
// kinds and keys of its ancestors.

// Appends the segment of child i of a `kind` container with `keys` to `path`: the key
// itself at the top of a call's inputs (`topLevel`), `['key']` in other dicts,
// `.field` in namedtuples and custom nodes, `[i]` otherwise (or when `keys` is short).
void appendKeyPathSegment(QString &path, NodeKind kind, const QStringList &keys, int i, bool topLevel);

// Checks every leaf's path against its place in `tree` (a call's inputs, or its outputs
// whose paths start at "output"). Returns the message for the first leaf that
// disagrees, prefixed with `callWhere` ("call 2"), or an empty string.
QString checkLeafPaths(const CallTree &tree, bool outputs, const QString &callWhere);

} // namespace dimscope
