// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "capture/capture.h"

#include <QStringList>
#include <QVector>

namespace dimscope {

// Inputs a capture holds only because InputRecorder's `value_if_missing` substituted a
// value where the call passed none (the call's `filled`, docs/capture-format.md): a
// vision-language model's decode steps recorded with `pixel_values` of 0 images. The
// value is there for the shape analysis; fed to the model it may take another path
// (the vision tower run on 0 images, issue 20). A program whose calls all had it
// substituted is exported and replayed without it, as the model was called; where it
// shares a program with calls that passed it, the program takes it (the demo's empty
// cache) and verification shows whether the model accepts it.
namespace SubstitutedInputs {

// The inputs substituted in every one of `calls` (indices into capture.calls; empty:
// every call), in signature order: no call of them passed these.
QStringList commonTo(const Capture &capture, const QVector<int> &calls = {});

// `capture` with `names` taken out of the inputs of every call that had them substituted
// (they stay in its `missing`, leave its `filled`); calls that passed them keep them.
Capture without(const Capture &capture, const QStringList &names);

// Whether the leaf key path `path` belongs to one of the inputs `names`
// ("pixel_values", "past_key_values.key_cache[0]").
bool isUnder(const QString &path, const QStringList &names);

// "pixel_values" / "pixel_values, image_sizes"
QString namesText(const QStringList &names);

} // namespace SubstitutedInputs

} // namespace dimscope
