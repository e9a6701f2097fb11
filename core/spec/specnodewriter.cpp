// SPDX-License-Identifier: GPL-3.0-or-later
#include "spec/specnodewriter.h"

#include "json/jsontext.h"

namespace dimscope {

void writeSpecNode(const SpecNode &n, const SpecSyntax &syntax, int indent, QString *out)
{
    switch (n.kind) {
    case SpecNode::Kind::None:
        *out += syntax.none;
        return;
    case SpecNode::Kind::Tensor:
        *out += syntax.tensor(n);
        return;
    default:
        break;
    }
    *out += syntax.open(n.kind);
    if (!n.children.isEmpty()) {
        *out += QLatin1Char('\n');
        const QString pad(indent + syntax.indentStep, QLatin1Char(' '));
        for (int i = 0; i < n.children.size(); ++i) {
            *out += pad;
            if (n.kind == SpecNode::Kind::Dict)
                *out += jsontext::quote(n.keys[i]) + QLatin1String(": ");
            writeSpecNode(n.children[i], syntax, indent + syntax.indentStep, out);
            *out += syntax.commaAfterLast || i + 1 < n.children.size() ? QLatin1String(",\n") : QLatin1String("\n");
        }
        *out += QString(indent, QLatin1Char(' '));
    }
    *out += syntax.close(n.kind);
}

} // namespace dimscope
