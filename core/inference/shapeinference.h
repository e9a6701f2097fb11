// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "inference/inferenceoptions.h"
#include "inference/inferenceresult.h"

namespace dimscope {

class Capture;

// Proposes a ConstraintSet from the captured calls (design.md, "What dynamic means"):
// per leaf dimension dynamic when its values differ between the calls that have the
// leaf; equal value sequences share one named Dim; exact A*d + B relations become
// derived Dims; ranges from the observations and the 0/1 rule. Each of these is a
// step of its own (DynamicDims, groupDynamicDims, nameDimGroups, deriveRelations,
// sumOfTwoDimsNotes, proposeDimRanges, ProposedConstraints, specializationWarnings,
// dimObservations); infer() runs them in order and collects their messages.
class ShapeInference
{
public:
    static InferenceResult infer(const Capture &capture, const InferenceOptions &options = {});
    static InferenceResult infer(const ShapeTable &table, const InferenceOptions &options = {});
};

} // namespace dimscope
