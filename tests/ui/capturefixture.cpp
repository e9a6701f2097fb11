#include "capturefixture.h"

#include <QAction>
#include <QApplication>
#include <QFileDialog>
#include <QLineEdit>
#include <QTimer>

using namespace dimscope;

namespace fixture {

int TreeBuilder::addNode(const TreeNode &node)
{
    m_tree.nodes.append(node);
    return m_tree.nodes.size() - 1;
}

int TreeBuilder::container(NodeKind kind, const QStringList &keys, const QString &typeName, const QString &flavour)
{
    TreeNode n;
    n.kind = kind;
    n.keys = keys;
    n.typeName = typeName;
    n.flavour = flavour;
    const int index = addNode(n);
    if (m_tree.root < 0)
        m_tree.root = index;
    return index;
}

int TreeBuilder::tensor(const QString &path, const QVector<qint64> &shape, DType dtype)
{
    TreeNode n;
    n.kind = NodeKind::Tensor;
    const int index = addNode(n);
    Leaf leaf;
    leaf.path = path;
    leaf.kind = NodeKind::Tensor;
    leaf.node = index;
    leaf.dtype = dtype;
    leaf.shape = shape;
    leaf.device = QStringLiteral("cpu");
    m_tree.nodes[index].leaf = m_tree.leaves.size();
    m_tree.leaves.append(leaf);
    return index;
}

int TreeBuilder::scalar(const QString &path, NodeKind kind, const QJsonValue &value)
{
    TreeNode n;
    n.kind = kind;
    const int index = addNode(n);
    Leaf leaf;
    leaf.path = path;
    leaf.kind = kind;
    leaf.node = index;
    leaf.value = value;
    m_tree.nodes[index].leaf = m_tree.leaves.size();
    m_tree.leaves.append(leaf);
    return index;
}

void TreeBuilder::add(int parent, int child)
{
    m_tree.nodes[parent].children.append(child);
    m_tree.nodes[child].parent = parent;
}

Capture kvCapture(int calls, int layers, int batch, int prompt)
{
    Capture capture;
    capture.formatVersion = 1;
    capture.modelClass = QStringLiteral("tests.TinyDecoder");
    for (const char *name : {"input_ids", "attention_mask", "past_key_values", "pixel_values", "use_cache"}) {
        Parameter p;
        p.name = QString::fromLatin1(name);
        p.kind = QStringLiteral("POSITIONAL_OR_KEYWORD");
        p.hasDefault = p.name != QLatin1String("input_ids");
        capture.signature.append(p);
    }
    for (int c = 0; c < calls; ++c) {
        CapturedCall call;
        call.index = c;
        const bool prefill = c == 0;
        const qint64 seq = prefill ? prompt : 1;
        const qint64 past = prefill ? 0 : prompt + c - 1;
        TreeBuilder b(call.inputs);
        QStringList keys = {QStringLiteral("input_ids"), QStringLiteral("attention_mask")};
        if (prefill)
            keys << QStringLiteral("pixel_values");
        else
            keys << QStringLiteral("past_key_values");
        keys << QStringLiteral("use_cache");
        const int root = b.container(NodeKind::Dict, keys);
        b.add(root, b.tensor(QStringLiteral("input_ids"), {batch, seq}, DType::I64));
        b.add(root, b.tensor(QStringLiteral("attention_mask"), {batch, past + seq}, DType::I64));
        if (prefill) {
            b.add(root, b.tensor(QStringLiteral("pixel_values"), {batch, 3, 8, 8}));
            call.missing << QStringLiteral("past_key_values");
        } else {
            const int cache = b.container(NodeKind::Custom, {QStringLiteral("key_cache"), QStringLiteral("value_cache")},
                                          QStringLiteral("transformers.cache_utils.DynamicCache"),
                                          QStringLiteral("key_value_dict"));
            b.add(root, cache);
            for (const QString &name : {QStringLiteral("key_cache"), QStringLiteral("value_cache")}) {
                const int list = b.container(NodeKind::List);
                b.add(cache, list);
                for (int l = 0; l < layers; ++l)
                    b.add(list, b.tensor(QStringLiteral("past_key_values.%1[%2]").arg(name).arg(l), {batch, 4, past, 8}));
            }
            call.missing << QStringLiteral("pixel_values");
        }
        b.add(root, b.scalar(QStringLiteral("use_cache"), NodeKind::Bool, true));
        capture.calls.append(call);
    }
    return capture;
}

QString dump(const QAbstractItemModel *model, const QModelIndex &parent, int depth)
{
    QString out;
    for (int r = 0; r < model->rowCount(parent); ++r) {
        QStringList cells;
        for (int c = 0; c < model->columnCount(parent); ++c)
            cells << model->index(r, c, parent).data().toString();
        while (!cells.isEmpty() && cells.last().isEmpty())
            cells.removeLast();
        out += QString(depth * 2, QLatin1Char(' ')) + cells.join(QStringLiteral(" | ")) + QLatin1Char('\n');
        out += dump(model, model->index(r, 0, parent), depth + 1);
    }
    return out;
}

int answerFileDialog(QAction *action, const QString &path)
{
    int answered = 0;
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, [&] {
        auto *dialog = qobject_cast<QFileDialog *>(QApplication::activeModalWidget());
        if (!dialog)
            return;
        if (++answered > 250) {
            dialog->reject();
            return;
        }
        if (auto *name = dialog->findChild<QLineEdit *>(QStringLiteral("fileNameEdit")))
            name->setText(path);
        QMetaObject::invokeMethod(dialog, "accept"); // protected in QFileDialog, a slot all the same
    });
    poll.start(20);
    action->trigger();
    poll.stop();
    return answered;
}

} // namespace fixture
