// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/programreadback.h"

#include "capture/capture.h"
#include "export/dimintent.h"
#include "pt2/pt2reader.h"

namespace dimscope {

ProgramReadBack ProgramReadBack::of(const ExportedProgram &exported, const Capture &capture)
{
    ProgramReadBack back;
    back.program = Pt2Reader::open(exported.result.output, &back.error);
    if (back.program && !capture.calls.isEmpty()) {
        const int call = qBound(0, exported.result.exampleCall, int(capture.calls.size()) - 1);
        back.mapping = DimIntent::fromConstraints(capture.calls.at(call).inputs, exported.constraints).map(*back.program);
    }
    return back;
}

} // namespace dimscope
