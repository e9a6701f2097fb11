// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "constraints/constraintset.h"
#include "export/exportresult.h"
#include "export/guardfixes.h"

#include <QVector>

namespace dimscope {

// The fix loop's last resort for a constraint violation that torch states without a
// fix and that GuardFixes derives none for. XLNet's relative attention guards its sizes
// with `Mod(2*mems_0_dim0 + 6, mems_0_dim0 + 3) == 0` and
// `CeilToInt(FloatTrueDiv(...)) != seq_len`: true for every size, but torch's solver
// cannot decide them over a named Dim's range. Each Dim torch lists becomes what a user
// would write next by hand, `Dim.DYNAMIC` (`NAME = Dim.DYNAMIC`, dimscope's own fix
// line): still dynamic, torch raises if it specializes it, and its guards stay in the
// program, which checks them on every call. Verification replays every recorded call
// through the program; a call its guards reject goes to a phase of its own.
namespace UnnamedDims {

// Nothing unless `failure` is a constraint violation naming Dims of `set`.
QVector<GuardFixes::Fix> lastResort(const WorkerFailure &failure, const ConstraintSet &set);

} // namespace UnnamedDims

} // namespace dimscope
