// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "capture/dtype.h"
#include "capture/tensornames.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QMap>
#include <QSharedData>
#include <QSharedDataPointer>
#include <QSharedPointer>
#include <QString>
#include <QStringList>
#include <QVector>

namespace dimscope {

// The in-memory form of a capture file (docs/capture-format.md). A Capture is an
// immutable value, cheap to copy: the mapped file is shared.

enum class NodeKind : quint8 { Dict, List, Tuple, NamedTuple, Custom, Tensor, None, Int, Float, Bool, String };

inline bool isLeafKind(NodeKind k) { return k >= NodeKind::Tensor; }
// The manifest's name of a kind ("dict", "namedtuple", "tensor", "str", ...).
QString nodeKindName(NodeKind k);

// What a namedtuple or custom node says of its class. Held apart from TreeNode:
// leaves and plain containers (nearly every node of a capture) have none, and
// keeping these fields in every node cost 64 bytes a leaf.
struct NodeClass : QSharedData {
    QString typeName;   // qualified class name
    QString flavour;    // custom: "key_value_dict", "pytree", ...
    QJsonValue context; // custom: the flatten context when JSON-representable
};

struct TreeNode {
    NodeKind kind = NodeKind::None;
    int parent = -1;
    int leaf = -1;         // leaf kinds: index into CallTree::leaves
    QStringList keys;      // dict keys, namedtuple fields, custom child keys (one per child)
    QVector<int> children; // indices into CallTree::nodes
    QSharedDataPointer<NodeClass> nodeClass; // namedtuple / custom only

    QString typeName() const { return nodeClass ? nodeClass->typeName : QString(); }
    QString flavour() const { return nodeClass ? nodeClass->flavour : QString(); }
    QJsonValue context() const { return nodeClass ? nodeClass->context : QJsonValue(); }
    void setClass(const QString &typeName, const QString &flavour = QString(), const QJsonValue &context = QJsonValue());
};

struct Leaf {
    QString path;          // key path, e.g. "past_key_values.key_cache[0]"
    int node = -1;         // index into CallTree::nodes
    NodeKind kind = NodeKind::None;
    // Tensor leaves (the small members first: no padding between them)
    DType dtype = DType::F32;
    QVector<qint64> shape;
    QString device;        // where it lived when recorded: "cpu", "cuda:0"
    int tensor = -1;       // its name in the safetensors header: Capture::tensorName()
    qint64 fileOffset = 0; // absolute offset of the bytes in the file
    qint64 byteSize = 0;
    // Scalar leaves (int, float, bool, str)
    QJsonValue value;
    bool isTensor() const { return kind == NodeKind::Tensor; }
};

struct CallTree {
    int root = -1;
    QVector<TreeNode> nodes;
    QVector<Leaf> leaves;  // in flattening order
    bool isEmpty() const { return root < 0; }
};

struct CapturedCall {
    int index = 0;
    int numPositional = 0;
    CallTree inputs;       // root is a Dict keyed by parameter name
    CallTree outputs;      // empty when outputs were not recorded
    QStringList missing;   // optional parameters not passed
    QStringList filled;    // subset of missing recorded from value_if_missing
    QJsonObject constantKwargs;
};

struct Parameter {
    QString name;
    QString kind;          // inspect.Parameter kind name, e.g. "POSITIONAL_OR_KEYWORD"
    bool hasDefault = false;
    QJsonValue defaultValue;
    QString defaultRepr;   // when the default is not JSON-representable
};

class MappedFile; // owns the QFile mapping (capture/mappedfile.h)

class Capture
{
public:
    QString filePath;
    int formatVersion = 0;
    QString producer;
    QString torchVersion;
    QString transformersVersion;
    QString modelClass;
    QVector<Parameter> signature;
    QMap<QString, QString> flattening; // class name -> flavour
    QStringList valueIfMissing;
    // What made the capture when a `record` request did (model, prompts, settings;
    // docs/capture-format.md): shown by inspect and the Export dock. Empty otherwise.
    QJsonObject recording;
    QVector<CapturedCall> calls;
    qint64 fileSize = 0;
    qint64 headerSize = 0;             // the JSON header's length in bytes
    TensorNames tensorNames;           // the header's tensor names, in header order

    // The name in the safetensors header of a tensor leaf of this capture (empty
    // for other leaves, and for captures built in memory, e.g. by tests).
    QString tensorName(const Leaf &leaf) const { return tensorNames.at(leaf.tensor); }

    // The raw bytes of a tensor leaf inside the mapped file (nullptr when the
    // capture was built in memory, e.g. by tests, or the leaf is not a tensor).
    const uchar *bytes(const Leaf &leaf) const;

    QSharedPointer<MappedFile> mapping; // keeps the bytes alive while any copy exists
};

} // namespace dimscope
