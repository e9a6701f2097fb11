// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/programreadback.h"

#include "capture/capture.h"
#include "export/dimintent.h"
#include "pt2/pt2reader.h"

namespace dimscope {

ProgramReadBack ProgramReadBack::of(const ExportedProgram &exported, const Capture &capture)
{
    if (capture.calls.isEmpty()) {
        ProgramReadBack back;
        back.program = Pt2Reader::open(exported.result.output, &back.error, {}, exported.result.program);
        return back;
    }
    const int call = qBound(0, exported.result.exampleCall, int(capture.calls.size()) - 1);
    const DimIntent intent = DimIntent::fromConstraints(capture.calls.at(call).inputs, exported.constraints);
    return read(exported.result.output, intent.withStatic(exported.result.staticByKeys()), exported.result.program);
}

ProgramReadBack ProgramReadBack::read(const QString &pt2, const DimIntent &intent, const QString &program)
{
    ProgramReadBack back;
    back.program = Pt2Reader::open(pt2, &back.error, {}, program);
    back.wantedDynamic = intent.wantedDynamicCount();
    if (back.program)
        back.mapping = intent.map(*back.program);
    return back;
}

int ProgramReadBack::specializedCount() const
{
    int count = 0;
    if (!mapping)
        return count;
    for (const Pt2DimMapping::Input &in : mapping->inputs)
        for (const Pt2DimMapping::Dim &dim : in.dims)
            count += dim.status == Pt2DimMapping::Dim::Status::Specialized ? 1 : 0;
    return count;
}

} // namespace dimscope
