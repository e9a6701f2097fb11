// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pt2/symexpr.h"

#include <QJsonValue>
#include <QMap>
#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace dimscope {

// What a torch.export .pt2 archive says about the exported program's interface
// (torch/_export/serde/schema.py). Immutable value; produced by Pt2Reader.

// One entry of a tensor's sizes or strides: an int, or a symbolic expression with
// the sample value torch saw (the hint).
struct SymSize {
    bool isStatic = true;
    qint64 value = 0;             // static value
    SymExpr expr;                 // symbolic entries
    std::optional<qint64> hint;   // symbolic entries: the example's value, when saved
    static SymSize fromInt(qint64 v) { SymSize s; s.value = v; return s; }
    static SymSize fromExpr(const SymExpr &e, std::optional<qint64> hint)
    {
        SymSize s;
        s.isStatic = false;
        s.expr = e;
        s.hint = hint;
        return s;
    }
    QString toString() const { return isStatic ? QString::number(value) : expr.toString(); }
};

struct Pt2TensorMeta {
    int scalarType = 0;           // torch serde ScalarType enum value
    QString dtype;                // "float32", "int64", ... ("scalar_type_99" if unknown)
    QString device;               // "cpu", "cuda:0"
    QVector<SymSize> sizes;
    std::optional<QVector<SymSize>> strides; // absent in some archives
    bool requiresGrad = false;
    // "float32[s0, 3, s1 + 1]"
    QString shapeString() const;
};

struct Pt2UserInput {
    enum class Kind { Tensor, SymInt, Constant, Other };
    Kind kind = Kind::Tensor;
    QString name;                 // graph placeholder name: "past_key_values_key_cache_0"
    QString path;                 // key path from in_spec, capture style: "past_key_values.key_cache[0]" ("" if unknown)
    QString argType;              // the serialized union tag: "as_tensor", "as_sym_int", "as_int", ...
    Pt2TensorMeta tensor;         // Kind::Tensor
    std::optional<SymSize> symInt;// Kind::SymInt, when its value is recorded
    QJsonValue constant;          // Kind::Constant: the value (null for None)
};

// Parameters, buffers, tensor constants, custom objects and effect tokens: inputs of
// the graph that the user does not pass.
struct Pt2StateInput {
    enum class Kind { Parameter, Buffer, TensorConstant, CustomObj, Token };
    Kind kind = Kind::Parameter;
    QString name;                 // placeholder: "p_lin_weight"
    QString target;               // FQN: "lin.weight" (empty for tokens)
    bool persistent = true;       // buffers
    std::optional<Pt2TensorMeta> tensor;
    static QString kindName(Kind k);
};

struct Pt2Output {
    QString kind;                 // "user_output", "buffer_mutation", "loss_output", ...
    QString name;                 // graph value name ("" for constants)
    QString target;               // buffer/parameter/user input it updates, when any
    std::optional<Pt2TensorMeta> tensor;
    QJsonValue constant;          // user_output of a non-tensor constant
};

struct Pt2Range {
    QString key;                  // as written: "s0", "s1 + 1"
    SymExpr expr;                 // parsed key
    std::optional<qint64> min;    // nullopt = unbounded (JSON null)
    std::optional<qint64> max;
    QString toString() const;     // "[2, 64]", "[0, oo]"
};

enum class Pt2Layout {
    Legacy,   // torch 2.5-2.7: root-level serialized_exported_program.json
    Archive   // torch 2.8+: PT2 archive, <root>/models/<name>.json
};

struct Pt2Program {
    QString filePath;
    Pt2Layout layout = Pt2Layout::Legacy;
    QString archiveRoot;          // Archive: the root folder ("model/"); Legacy: ""
    QString jsonEntry;            // zip entry holding the program JSON
    QString modelName;            // Archive: the model read ("model"); Legacy: ""
    QStringList modelNames;       // Archive: every models/*.json name
    QString archiveVersion;       // Legacy: `version` ("8.2"); Archive: `.data/version`
    QString pt2ArchiveVersion;    // Archive: `archive_version` when present
    int schemaMajor = -1;         // schema_version (-1 if absent)
    int schemaMinor = -1;
    QString torchVersion;         // "" when the JSON does not say (2.5)
    QMap<QString, int> opsetVersion;

    QVector<Pt2UserInput> inputs; // user inputs, in graph (flattening) order
    QVector<Pt2StateInput> state; // parameters, buffers, constants, tokens
    QVector<Pt2Output> outputs;
    QVector<Pt2Range> ranges;     // range_constraints, s2 before s11
    QStringList forwardArgNames;
    QString inSpec;               // TreeSpec JSON string
    QString outSpec;
    QStringList warnings;         // non-fatal oddities (unsupported expressions, ...)
    // torch's symbol -> the Dim name it was exported as ("s23" -> "batch"), from the
    // record dimscope's export stores in the file (Pt2DimRecord); empty for other files.
    QMap<QString, QString> recordedDimNames;

    QString layoutName() const;   // "torch 2.5-2.7 (serialized_exported_program.json)" / "PT2 archive (torch 2.8+)"
    // Free symbols of the user inputs' sizes, in first-appearance order.
    QStringList inputSymbols() const;
    // The range of a symbol or expression key ("s0", "s1 + 1"), matched by value.
    std::optional<Pt2Range> rangeOf(const SymExpr &expr) const;
    int countState(Pt2StateInput::Kind kind) const;
};

} // namespace dimscope
