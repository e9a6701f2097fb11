// SPDX-License-Identifier: GPL-3.0-or-later
#include "compare/exportcomparison.h"

#include "document/exportrecord.h"
#include "export/exportphases.h"
#include "models/verificationmodel.h"
#include "text/rangetext.h"
#include "text/unservedadvice.h"

#include <QCoreApplication>
#include <QMap>

#include <algorithm>

namespace dimscope {

namespace {

QString tr(const char *text, int n = -1) { return QCoreApplication::translate("dimscope::ExportComparison", text, nullptr, n); }

// Keys in first-seen order (A's, then those only B has) and a value per side.
struct Paired {
    QStringList keys;
    QMap<QString, QString> a, b;
    void add(QMap<QString, QString> &side, const QString &key, const QString &value)
    {
        if (!a.contains(key) && !b.contains(key))
            keys << key;
        side.insert(key, value);
    }
    Comparison::Section section(const QString &title) const
    {
        Comparison::Section s{title, {}};
        for (const QString &key : keys)
            s.rows << Comparison::row(key, a.value(key, Comparison::none()), b.value(key, Comparison::none()));
        return s;
    }
};

QString programName(const ExportRecord &r, int i) { return PhasedExportOutcome::programText(r.outcome.programs, i, true); }

// Every Dim's range in each program of `r`: from the program read back, in Dim names
// (torch's symbols where a range has no Dim), and "static N (specialized)" for a Dim the
// constraints made dynamic that torch made a constant.
QMap<QString, QStringList> rangesByDim(const ExportRecord &r)
{
    QMap<QString, QStringList> byDim; // Dim -> "value" per program that has it, "program: value"
    const int programs = int(r.outcome.programs.size());
    for (int p = 0; p < programs; ++p) {
        const ProgramReadBack rb = p < r.readBacks.size() ? r.readBacks.at(p) : ProgramReadBack();
        QMap<QString, QString> own;
        if (rb.program) {
            for (const Pt2Range &range : rb.program->ranges)
                own.insert(rb.mapping ? rb.mapping->namedExpression(range.expr) : range.key,
                           RangeText::range(range.min, range.max));
        } else {
            for (const RangeConstraint &range : r.outcome.programs.at(p).result.ranges)
                own.insert(range.symbol, RangeText::range(range.min, range.max));
        }
        if (rb.mapping)
            for (const Pt2DimMapping::Input &input : rb.mapping->inputs)
                for (const Pt2DimMapping::Dim &dim : input.dims)
                    if (dim.status == Pt2DimMapping::Dim::Status::Specialized && !own.contains(dim.intended))
                        own.insert(dim.intended, tr("static %1 (specialized)").arg(dim.size.toString()));
        for (auto it = own.cbegin(); it != own.cend(); ++it)
            byDim[it.key()] << (programs > 1 ? QStringLiteral("%1: %2").arg(programName(r, p), it.value()) : it.value());
    }
    return byDim;
}

// The program of `r` that serves `call`, or -1.
int servingProgram(const ExportRecord &r, int call)
{
    for (int p = 0; p < r.outcome.programs.size(); ++p)
        if (r.outcome.programs.at(p).calls.contains(call))
            return p;
    return -1;
}

// The verification row of `call`: the serving program's, else the first that ran it
// (a rejection), else the first attempt's.
std::optional<CallVerification> verificationOf(const ExportRecord &r, int call)
{
    QVector<const ExportResult *> results;
    const int serving = servingProgram(r, call);
    if (serving >= 0)
        results << &r.outcome.programs.at(serving).result;
    for (const ExportedProgram &p : r.outcome.programs)
        results << &p.result;
    results << &r.outcome.firstAttempt;
    for (const ExportResult *result : results)
        for (const CallVerification &row : result->verification)
            if (row.call == call)
                return row;
    return std::nullopt;
}

QString verificationText(const ExportRecord &r, int call)
{
    const std::optional<CallVerification> row = verificationOf(r, call);
    if (!row)
        return r.outcome.programs.isEmpty() ? tr("not run (nothing exported)") : tr("not run");
    const QString status = VerificationModel::statusText(row->status);
    if (row->status == QLatin1String("rejected"))
        return tr("%1: %2").arg(status, UnservedAdvice::rejectionReason(*row));
    return status;
}

int callCount(const ExportRecord &a, const ExportRecord &b) { return std::max(a.outcome.callCount, b.outcome.callCount); }

} // namespace

Comparison ExportComparison::make(const ExportRecord &a, const ExportRecord &b)
{
    Comparison c;
    c.titleA = a.label();
    c.titleB = b.label();
    c.sections = {results(a, b), programs(a, b), ranges(a, b), guards(a, b), calls(a, b), verification(a, b)};
    return c;
}

Comparison::Section ExportComparison::results(const ExportRecord &a, const ExportRecord &b)
{
    auto served = [](const ExportRecord &r) {
        return tr("%1 of %2").arg(r.outcome.servedCalls().size()).arg(r.outcome.callCount);
    };
    return {tr("Result"),
            {Comparison::row(tr("verdict"), a.verdict(), b.verdict()),
             Comparison::row(tr("calls served"), served(a), served(b)),
             Comparison::row(tr("torch.export calls"), a.outcome.tracesText(), b.outcome.tracesText())}};
}

Comparison::Section ExportComparison::programs(const ExportRecord &a, const ExportRecord &b)
{
    auto text = [](const ExportRecord &r, int p) {
        if (p >= r.outcome.programs.size())
            return Comparison::none();
        const ExportedProgram &program = r.outcome.programs.at(p);
        return tr("%1: calls %2 (%3)").arg(programName(r, p), program.callsText(), program.description);
    };
    Comparison::Section s{tr("Programs"), {}};
    const int n = int(std::max(a.outcome.programs.size(), b.outcome.programs.size()));
    for (int p = 0; p < n; ++p)
        s.rows << Comparison::row(tr("program %1").arg(p + 1), text(a, p), text(b, p));
    return s;
}

Comparison::Section ExportComparison::ranges(const ExportRecord &a, const ExportRecord &b)
{
    Paired paired;
    const QMap<QString, QStringList> ra = rangesByDim(a), rb = rangesByDim(b);
    for (auto it = ra.cbegin(); it != ra.cend(); ++it)
        paired.add(paired.a, it.key(), it.value().join(QStringLiteral("; ")));
    for (auto it = rb.cbegin(); it != rb.cend(); ++it)
        paired.add(paired.b, it.key(), it.value().join(QStringLiteral("; ")));
    return paired.section(tr("Ranges per Dim"));
}

// torch's shape decisions, each with the programs it was made for: a guard or a
// specialization one export has and the other has not is a difference.
Comparison::Section ExportComparison::guards(const ExportRecord &a, const ExportRecord &b)
{
    auto collect = [](const ExportRecord &r) {
        QStringList order;
        QMap<QString, QStringList> where; // "specialized: seq_len == 4" -> programs
        auto add = [&](const QVector<ShapeExplanation> &explanations, const QString &program) {
            for (const ShapeExplanation &e : explanations) {
                const QString key = QStringLiteral("%1: %2").arg(e.kindText(), e.expression);
                if (!where.contains(key))
                    order << key;
                if (!where[key].contains(program))
                    where[key] << program;
            }
        };
        for (int p = 0; p < r.outcome.programs.size(); ++p)
            add(r.outcome.programs.at(p).result.explanations, programName(r, p));
        if (r.outcome.programs.isEmpty())
            add(r.outcome.firstAttempt.explanations, tr("the failed export"));
        return std::make_pair(order, where);
    };
    const auto [orderA, whereA] = collect(a);
    const auto [orderB, whereB] = collect(b);
    Paired paired;
    for (const QString &key : orderA)
        paired.add(paired.a, key, whereA.value(key).join(QStringLiteral(", ")));
    for (const QString &key : orderB)
        paired.add(paired.b, key, whereB.value(key).join(QStringLiteral(", ")));
    return paired.section(tr("Guards and specializations"));
}

Comparison::Section ExportComparison::calls(const ExportRecord &a, const ExportRecord &b)
{
    auto text = [](const ExportRecord &r, int call) {
        if (call >= r.outcome.callCount)
            return Comparison::none();
        const int p = servingProgram(r, call);
        return p < 0 ? tr("served by no program") : programName(r, p);
    };
    Comparison::Section s{tr("Calls served"), {}};
    for (int call = 0; call < callCount(a, b); ++call)
        s.rows << Comparison::row(tr("call %1").arg(call), text(a, call), text(b, call));
    return s;
}

Comparison::Section ExportComparison::verification(const ExportRecord &a, const ExportRecord &b)
{
    Comparison::Section s{tr("Verification"), {}};
    for (int call = 0; call < callCount(a, b); ++call)
        s.rows << Comparison::row(tr("call %1").arg(call), verificationText(a, call), verificationText(b, call));
    return s;
}

} // namespace dimscope
