// SPDX-License-Identifier: GPL-3.0-or-later
#include "inference/shapeinference.h"

#include "inference/derivedrelations.h"
#include "inference/dimgrouping.h"
#include "inference/dimgroupnames.h"
#include "inference/dimobservations.h"
#include "inference/dimranges.h"
#include "inference/dimsums.h"
#include "inference/dynamicdims.h"
#include "spec/examplecall.h"
#include "inference/proposedconstraints.h"
#include "inference/singlecallleaves.h"
#include "inference/specializationwarnings.h"
#include "util/terminaltext.h"

#include <QHash>

namespace dimscope {

namespace {

using Severity = InferenceMessage::Severity;

// One warning per input and pair of call sets for the leaves some calls have and others
// not (a cache layer's states before and after its first update are many leaves).
QVector<InferenceMessage> presenceWarnings(const QVector<const ShapeIssue *> &issues)
{
    QVector<InferenceMessage> out;
    QHash<QString, int> byCalls;
    for (const ShapeIssue *issue : issues) {
        const QString key = issue->input + QLatin1Char('|') + describeCalls(issue->present) + QLatin1Char('|')
            + describeCalls(issue->calls);
        auto it = byCalls.constFind(key);
        if (it == byCalls.constEnd()) {
            byCalls.insert(key, int(out.size()));
            out.append({Severity::Warning, issue->message, {}, {issue->path}, issue->calls});
            continue;
        }
        InferenceMessage &m = out[*it];
        m.leaves << issue->path;
        m.text = QStringLiteral("%1 leaves of '%2' ('%3', +%4 more) are present in call(s) %5 but absent from call(s) "
                                "%6: the structure of '%2' changes between calls (a program serves the calls of one "
                                "structure)")
                     .arg(m.leaves.size())
                     .arg(TerminalText::field(issue->input), TerminalText::field(m.leaves.first()))
                     .arg(m.leaves.size() - 1)
                     .arg(describeCalls(issue->present), describeCalls(issue->calls));
    }
    return out;
}

// The table's structure errors, and what a capture of 0 or 1 call cannot tell.
QVector<InferenceMessage> captureMessages(const ShapeTable &table, const InferenceOptions &options)
{
    QVector<InferenceMessage> messages;
    QVector<const ShapeIssue *> presence;
    for (const ShapeIssue &issue : table.issues()) {
        if (issue.isError())
            messages.append({Severity::Error, issue.message, {}, {issue.path}, issue.calls});
        else
            presence << &issue;
    }
    messages += presenceWarnings(presence);
    if (table.callCount() == 0)
        messages.append({Severity::Note, QStringLiteral("the capture has no calls: nothing to infer"), {}, {}, {}});
    const bool onlyObserved = options.mode == InferenceOptions::Mode::Observed && !options.forcesSomeBatch();
    if (table.callCount() == 1 && onlyObserved)
        messages.append({Severity::Warning,
                         QStringLiteral("only one call was captured: every dimension is static. Capture calls with "
                                        "different sizes, or use all-dynamic / batch mode"),
                         {},
                         {},
                         {}});
    return messages;
}

} // namespace

InferenceResult ShapeInference::infer(const Capture &capture, const InferenceOptions &options)
{
    return infer(ShapeTable(capture), options);
}

InferenceResult ShapeInference::infer(const ShapeTable &table, const InferenceOptions &options)
{
    InferenceResult result;
    result.table = table;
    result.messages = captureMessages(table, options);
    if (table.callCount() == 0)
        return result;
    result.messages += singleCallLeafWarnings(table);

    QVector<DimGroup> groups = groupDynamicDims(table, DynamicDims::find(table, options), options.forcesSomeBatch());
    nameDimGroups(table, &groups);
    result.messages += deriveRelations(&groups);
    result.messages += sumOfTwoDimsNotes(groups);
    result.messages += proposeDimRanges(&groups);

    // The example call depends on the set, and which Dims must be Dim.AUTO on the
    // example call: a first set without auto groups chooses the call.
    result.constraints = ProposedConstraints::build(table, groups, {});
    result.exampleCall = chooseExampleCall(table, result.constraints);
    const QVector<int> autoGroups = ProposedConstraints::autoGroupsAt(groups, result.exampleCall);
    if (!autoGroups.isEmpty())
        result.constraints = ProposedConstraints::build(table, groups, autoGroups);

    result.messages += specializationWarnings(table, groups, autoGroups, result.exampleCall);
    for (int g : autoGroups)
        result.autoGroups.append({groups[g].name, groups[g].rows});
    result.observations = dimObservations(table, ProposedConstraints::rowDimNames(table, groups, autoGroups));
    return result;
}

} // namespace dimscope
