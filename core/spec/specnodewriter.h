// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "spec/spectree.h"

#include <QLatin1String>
#include <QString>

namespace dimscope {

// How an emitter spells a SpecNode tree. The layout is shared: a container's children
// one per line, `indentStep` deeper, dict keys quoted; the tokens differ.
struct SpecSyntax {
    QLatin1String none;                        // a None node: "null", "None"
    int indentStep = 2;
    bool commaAfterLast = false;               // Python: also makes a 1-tuple a tuple
    QString (*tensor)(const SpecNode &node);   // a Tensor node, whole
    QLatin1String (*open)(SpecNode::Kind kind);  // a container's brackets
    QLatin1String (*close)(SpecNode::Kind kind);
};

// Appends `node` to `out`; `indent` is the column its closing bracket goes to.
void writeSpecNode(const SpecNode &node, const SpecSyntax &syntax, int indent, QString *out);

} // namespace dimscope
