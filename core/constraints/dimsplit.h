// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "constraints/constraintset.h"

#include <QStringList>

namespace dimscope {

// Splits a Dim that several inputs share into one Dim per input.
//
// The inference gives one Dim to dims that are equal in every captured call, even
// across inputs: LLaVA's batch and its number of images (`pixel_values` dim 0) are both
// 2 in every call of a capture with one image per row. When torch then specializes
// that Dim, the constant is usually needed by one input's code only (LLaVA turns the
// images into a Python list); specializing the shared Dim would make the batch static
// too. Splitting it first and exporting again lets torch say which input needs it.
class DimSplit
{
public:
    // The top-level inputs (`input_ids`, `past_key_values`, ...) whose leaves use `name`
    // directly (not through a derived Dim), in leaf order.
    static QStringList inputsUsing(const ConstraintSet &set, const QString &name);

    // Every input but the first that uses `name` gets a root Dim of its own with the
    // same range, `NAME_INPUT`, for its uses of `name`. Returns the new Dims' names;
    // none when fewer than two inputs use `name` or on an error (*error set).
    static QStringList splitByInput(ConstraintSet *set, const QString &name, QString *error);

    // The top-level input a key path starts with: "past_key_values" for
    // "past_key_values.key_cache[0]", "inputs" for "inputs['a'][1]".
    static QString topLevelInput(const QString &path);
};

} // namespace dimscope
