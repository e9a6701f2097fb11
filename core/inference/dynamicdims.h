// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QVector>

namespace dimscope {

class ShapeTable;
struct InferenceOptions;

// Which leaf dimensions (ShapeTable dim rows) ShapeInference makes dynamic: those
// whose values differ between the calls that have the leaf, plus those the options
// force. Leaves whose kind or rank changes, and leaves no call has, stay static.
struct DynamicDims {
    QVector<quint8> varying; // per dim row: its values differ between calls
    QVector<quint8> dynamic; // per dim row: varying, or forced by the options
    QVector<int> rows;       // the dynamic rows, ascending

    static DynamicDims find(const ShapeTable &table, const InferenceOptions &options);
};

} // namespace dimscope
