// SPDX-License-Identifier: GPL-3.0-or-later
#include "capture/capture.h"
#include "capture/mappedfile.h"

namespace dimscope {

QString nodeKindName(NodeKind k)
{
    switch (k) {
    case NodeKind::Dict: return QStringLiteral("dict");
    case NodeKind::List: return QStringLiteral("list");
    case NodeKind::Tuple: return QStringLiteral("tuple");
    case NodeKind::NamedTuple: return QStringLiteral("namedtuple");
    case NodeKind::Custom: return QStringLiteral("custom");
    case NodeKind::Tensor: return QStringLiteral("tensor");
    case NodeKind::None: return QStringLiteral("none");
    case NodeKind::Int: return QStringLiteral("int");
    case NodeKind::Float: return QStringLiteral("float");
    case NodeKind::Bool: return QStringLiteral("bool");
    case NodeKind::String: return QStringLiteral("str");
    }
    return {};
}

void TreeNode::setClass(const QString &typeName, const QString &flavour, const QJsonValue &context)
{
    nodeClass = new NodeClass;
    nodeClass->typeName = typeName;
    nodeClass->flavour = flavour;
    nodeClass->context = context;
}

const uchar *Capture::bytes(const Leaf &leaf) const
{
    if (!mapping || !leaf.isTensor() || leaf.fileOffset < 0 || leaf.byteSize < 0
        || leaf.fileOffset + leaf.byteSize > mapping->size())
        return nullptr;
    return mapping->data() + leaf.fileOffset;
}

} // namespace dimscope
