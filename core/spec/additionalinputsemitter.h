// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace dimscope {

class Capture;
class ConstraintSet;
class TorchFeatures;
struct SpecNode;

// The dynamic_shapes of the SpecDialect::AdditionalInputs dialect, for SpecScript: a
// torch.export.AdditionalInputs holding every other captured call whose inputs have the
// example call's structure (torch makes dynamic what differs among them, static what
// does not, and checks each call against the program). Says which calls are left out
// and which named Dims never vary among the calls (static here, unlike the named
// dialect). Expects `capture` defined before it; where `torch` is not known to have
// AdditionalInputs the script stops with a message saying so.
class AdditionalInputsEmitter
{
public:
    static QString body(const Capture &capture, const SpecNode &tree, int exampleCall, const TorchFeatures &torch);
};

} // namespace dimscope
