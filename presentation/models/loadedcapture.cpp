// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/loadedcapture.h"

#include "inference/captureanalysis.h"

#include "models/dtypetext.h"

namespace dimscope {

namespace {

QString shortClassName(const QString &qualified)
{
    const int dot = qualified.lastIndexOf(QLatin1Char('.'));
    return dot < 0 ? qualified : qualified.mid(dot + 1);
}

} // namespace

QString LoadedCapture::typeText(const Capture &capture, const AlignedNode &node)
{
    switch (node.kind) {
    case NodeKind::Dict: return QStringLiteral("dict");
    case NodeKind::List: return QStringLiteral("list[%1]").arg(node.childCount);
    case NodeKind::Tuple: return QStringLiteral("tuple[%1]").arg(node.childCount);
    case NodeKind::NamedTuple:
    case NodeKind::Custom: return shortClassName(node.typeName);
    case NodeKind::Tensor: {
        // The distinct dtypes over the calls, in call order.
        QVector<DType> seen;
        for (int c = 0; c < node.leafInCall.size(); ++c) {
            const Leaf *leaf = AlignedTree::leafIn(capture, node, c);
            if (leaf && leaf->isTensor() && !seen.contains(leaf->dtype))
                seen.append(leaf->dtype);
        }
        QStringList dtypes;
        for (DType d : std::as_const(seen))
            dtypes.append(dtypeText(d));
        return dtypes.join(QStringLiteral(" | "));
    }
    case NodeKind::None: return QStringLiteral("None");
    case NodeKind::Int: return QStringLiteral("int");
    case NodeKind::Float: return QStringLiteral("float");
    case NodeKind::Bool: return QStringLiteral("bool");
    case NodeKind::String: return QStringLiteral("str");
    }
    return {};
}

QSharedPointer<const LoadedCapture> LoadedCapture::build(const Capture &capture, const AlignedTree::Progress &progress)
{
    return build(CaptureAnalysis::of(capture), progress);
}

QSharedPointer<const LoadedCapture> LoadedCapture::build(CaptureAnalysis analysis, const AlignedTree::Progress &progress)
{
    // Steps: one per call merged into the tree, then the shape summaries.
    const Capture &capture = analysis.capture;
    const int total = int(capture.calls.size()) + 1;
    auto report = [&](int done) { return !progress || progress(done, total); };
    auto loaded = QSharedPointer<LoadedCapture>::create();
    loaded->tree = AlignedTree::build(capture, [&](int done, int) { return report(done); });
    if (!report(total - 1))
        return loaded;
    const QVector<AlignedNode> &nodes = loaded->tree.nodes();
    loaded->shapes.resize(nodes.size());
    loaded->typeTexts.resize(nodes.size());
    loaded->presentCalls.resize(nodes.size());
    for (int i = 0; i < nodes.size(); ++i) {
        const AlignedNode &node = nodes.at(i);
        // What the tree's data() would otherwise recount over every call, per paint.
        int present = 0;
        for (int leaf : node.leafInCall)
            present += leaf >= 0 ? 1 : 0;
        loaded->presentCalls[i] = present;
        loaded->typeTexts[i] = typeText(capture, node);
        if (node.isLeaf())
            loaded->shapes[i] = ShapeSummary::of(capture, node);
    }
    loaded->inference = std::move(analysis.inference);
    loaded->capture = std::move(analysis.capture);
    report(total);
    return loaded;
}

} // namespace dimscope
