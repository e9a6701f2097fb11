#include "models/loadedcapture.h"

#include "shapes/shapeinference.h"

namespace dimscope {

QSharedPointer<const LoadedCapture> LoadedCapture::build(const Capture &capture, const AlignedTree::Progress &progress)
{
    auto loaded = QSharedPointer<LoadedCapture>::create();
    loaded->capture = capture;
    loaded->tree = AlignedTree::build(capture, progress);
    const QVector<AlignedNode> &nodes = loaded->tree.nodes();
    loaded->shapes.resize(nodes.size());
    for (int i = 0; i < nodes.size(); ++i) {
        if (nodes.at(i).isLeaf())
            loaded->shapes[i] = ShapeSummary::of(capture, nodes.at(i));
    }
    loaded->inference = ShapeInference::infer(capture);
    return loaded;
}

} // namespace dimscope
