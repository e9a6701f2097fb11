// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/suggestedfixapplier.h"

#include <QFile>
#include <QMap>
#include "deterministictestmain.h"

using namespace dimscope;

// The real torch 2.6 messages in tests/fixtures/torch-2.6 (torch 2.6 output), by section.
static QMap<QString, QString> samples(const QString &file)
{
    QFile f(QStringLiteral(DIMSCOPE_SOURCE_DIR "/tests/fixtures/torch-2.6/") + file);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QMap<QString, QString> out;
    QString name;
    for (const QString &line : QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'))) {
        if (line.startsWith(QLatin1String("=== "))) {
            name = line.mid(4).trimmed();
            continue;
        }
        if (!name.isEmpty())
            out[name] += line + QLatin1Char('\n');
    }
    return out;
}

static ConstraintSet twoInputs()
{
    ConstraintSet s;
    s.addRootDim(QStringLiteral("batch"), std::nullopt, 64);
    s.addRootDim(QStringLiteral("dx"));
    s.addRootDim(QStringLiteral("dy"));
    s.addRootDim(QStringLiteral("a"));
    s.addRootDim(QStringLiteral("c"));
    s.setLeaf(QStringLiteral("x"), {DimAssignment::named(QStringLiteral("dx")), DimAssignment::named(QStringLiteral("batch"))});
    s.setLeaf(QStringLiteral("y"), {DimAssignment::named(QStringLiteral("dy"))});
    s.setLeaf(QStringLiteral("z"), {DimAssignment::named(QStringLiteral("a")), DimAssignment::named(QStringLiteral("c"))});
    return s;
}

class TestSuggestedFixes : public QObject
{
    Q_OBJECT
private slots:
    void realSamples_data();
    void realSamples();
    void violations();
    void fixGrammar_data();
    void fixGrammar();
    void unapplied();
    void structureErrorsHaveNoFixes();
    void freshRootKeepsDerivedRange();
};

void TestSuggestedFixes::realSamples_data()
{
    QTest::addColumn<QString>("section");
    QTest::addColumn<int>("violations");
    QTest::addColumn<QString>("check"); // what the applied set must show
    QTest::newRow("specialize") << "specialize" << 1 << "batch gone, x dim 1 static";
    QTest::newRow("range") << "range" << 1 << "dx max 16";
    QTest::newRow("equal") << "equal" << 1 << "dy merged into dx";
    QTest::newRow("derived") << "derived" << 1 << "dx = dy + 1";
    QTest::newRow("divisible") << "divisible" << 6 << "dx = 2*_dx, _dx in [1, 512]";
    QTest::newRow("multi") << "multi" << 2 << "c merged into a";
}

void TestSuggestedFixes::realSamples()
{
    QFETCH(QString, section);
    QFETCH(int, violations);
    QFETCH(QString, check);
    const auto all = samples(QStringLiteral("constraint-violations.txt"));
    QVERIFY2(all.contains(section), qPrintable(section));
    const auto r = SuggestedFixApplier::apply(twoInputs(), all.value(section));
    QCOMPARE(r.violations.size(), violations);
    QVERIFY(r.unapplied.isEmpty());
    QVERIFY(!r.applied.isEmpty());
    const ConstraintSet &s = r.constraints;
    QVERIFY(s.checkInvariants().isEmpty());
    if (section == QLatin1String("specialize")) {
        QVERIFY(!s.dim(QStringLiteral("batch")));
        QCOMPARE(s.assignment(QStringLiteral("x"), 1), DimAssignment::makeStatic());
    } else if (section == QLatin1String("range")) {
        QCOMPARE(s.dim(QStringLiteral("dx"))->max, std::optional<qint64>(16));
        QCOMPARE(s.dim(QStringLiteral("dx"))->min, std::optional<qint64>());
    } else if (section == QLatin1String("equal")) {
        QVERIFY(!s.dim(QStringLiteral("dy")));
        QCOMPARE(s.assignment(QStringLiteral("y"), 0), DimAssignment::named(QStringLiteral("dx")));
    } else if (section == QLatin1String("derived")) {
        QCOMPARE(s.dim(QStringLiteral("dx"))->relationText(), QStringLiteral("dy + 1"));
    } else if (section == QLatin1String("divisible")) {
        QCOMPARE(s.dim(QStringLiteral("dx"))->relationText(), QStringLiteral("2*_dx"));
        QCOMPARE(s.dim(QStringLiteral("_dx"))->min, std::optional<qint64>(1));
        QCOMPARE(s.dim(QStringLiteral("_dx"))->max, std::optional<qint64>(512));
    } else if (section == QLatin1String("multi")) {
        QVERIFY(!s.dim(QStringLiteral("c")));
        QCOMPARE(s.assignment(QStringLiteral("z"), 1), DimAssignment::named(QStringLiteral("a")));
    }
}

void TestSuggestedFixes::violations()
{
    const auto all = samples(QStringLiteral("constraint-violations.txt"));
    auto v = ExportErrorParser::parseViolations(all.value(QStringLiteral("specialize")));
    QCOMPARE(v.size(), 1);
    QCOMPARE(v[0].kind, ExportViolation::Kind::Specialized);
    QCOMPARE(v[0].dim, QStringLiteral("batch"));
    QCOMPARE(v[0].source, QStringLiteral("L['args'][0][0].size()[0]"));
    QCOMPARE(v[0].range, QStringLiteral("batch <= 64"));
    QCOMPARE(v[0].constant, std::optional<qint64>(4));
    v = ExportErrorParser::parseViolations(all.value(QStringLiteral("range")));
    QCOMPARE(v[0].kind, ExportViolation::Kind::Guard);
    QCOMPARE(v[0].guard, QStringLiteral("2 <= L['args'][0][0].size()[0] and L['args'][0][0].size()[0] <= 16"));
    v = ExportErrorParser::parseViolations(all.value(QStringLiteral("equal")));
    QCOMPARE(v[0].kind, ExportViolation::Kind::Equal);
    QCOMPARE(v[0].otherDim, QStringLiteral("dx"));
    QCOMPARE(v[0].otherSource, QStringLiteral("L['args'][0][0].size()[0]"));
    v = ExportErrorParser::parseViolations(all.value(QStringLiteral("derived")));
    QCOMPARE(v[0].kind, ExportViolation::Kind::Related);
    QCOMPARE(v[0].relation, QStringLiteral("dx = dy + 1"));
    v = ExportErrorParser::parseViolations(all.value(QStringLiteral("divisible")));
    QCOMPARE(v[0].range, QStringLiteral("dx <= 1024"));
    QCOMPARE(v[0].guard, QStringLiteral("(L['args'][0][0].size()[0] // 2) != L['args'][0][0].size()[0]"));
    const auto d = ExportErrorParser::parseViolation(
        QStringLiteral("  - Not all values of RelaxedUnspecConstraint(L['args'][0][0].size()[0]) are valid because "
                       "L['args'][0][0].size()[0] was inferred to be a constant (4)."));
    QCOMPARE(d.kind, ExportViolation::Kind::DynamicSpecialized);
    QCOMPARE(d.constant, std::optional<qint64>(4));
    const auto n = ExportErrorParser::parseViolation(
        QStringLiteral("  - You marked batch as dynamic but your code specialized it to be a constant (4). If you're using mark_dynamic, ..."));
    QCOMPARE(n.kind, ExportViolation::Kind::Specialized);
    QCOMPARE(n.dim, QStringLiteral("batch"));
    QCOMPARE(ExportErrorParser::parseViolation(QStringLiteral("  - something else")).kind, ExportViolation::Kind::Unknown);
}

void TestSuggestedFixes::fixGrammar_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("fields");
    QTest::newRow("int") << "batch = 4" << int(SuggestedFix::Kind::Specialize) << "batch 4";
    QTest::newRow("range min max") << "dx = Dim('dx', min=3, max=16)" << int(SuggestedFix::Kind::Range) << "dx 3 16";
    QTest::newRow("range oo") << "_dx = Dim('_dx', min=1, max=oo)" << int(SuggestedFix::Kind::Range) << "_dx 1 oo";
    QTest::newRow("range none") << "dx = Dim('dx')" << int(SuggestedFix::Kind::Range) << "dx - oo";
    QTest::newRow("equal") << "dy = dx" << int(SuggestedFix::Kind::Equal) << "dy dx";
    QTest::newRow("plus") << "dx = dy + 1" << int(SuggestedFix::Kind::Derived) << "dx 1*dy+1";
    QTest::newRow("minus") << "dx = dy - 3" << int(SuggestedFix::Kind::Derived) << "dx 1*dy+-3";
    QTest::newRow("times") << "dx = 2*_dx" << int(SuggestedFix::Kind::Derived) << "dx 2*_dx+0";
    QTest::newRow("times plus") << "dx = 4*dy + 2" << int(SuggestedFix::Kind::Derived) << "dx 4*dy+2";
    QTest::newRow("unnamed") << "dx = Dim.DYNAMIC" << int(SuggestedFix::Kind::Unnamed) << "dx";
    QTest::newRow("garbage") << "dx = dy // 2" << int(SuggestedFix::Kind::Unknown) << "";
    QTest::newRow("auto") << "dx = Dim.AUTO" << int(SuggestedFix::Kind::Unknown) << "";
    QTest::newRow("other name") << "dx = Dim('dy')" << int(SuggestedFix::Kind::Unknown) << "";
}

void TestSuggestedFixes::fixGrammar()
{
    QFETCH(QString, line);
    QFETCH(int, kind);
    QFETCH(QString, fields);
    const SuggestedFix f = ExportErrorParser::parseFix(QStringLiteral("  ") + line);
    QCOMPARE(int(f.kind), kind);
    QString got;
    switch (f.kind) {
    case SuggestedFix::Kind::Specialize: got = QStringLiteral("%1 %2").arg(f.name).arg(f.value); break;
    case SuggestedFix::Kind::Range:
        got = QStringLiteral("%1 %2 %3").arg(f.name, f.min ? QString::number(*f.min) : QStringLiteral("-"), f.max ? QString::number(*f.max) : QStringLiteral("oo"));
        break;
    case SuggestedFix::Kind::Equal: got = QStringLiteral("%1 %2").arg(f.name, f.other); break;
    case SuggestedFix::Kind::Derived: got = QStringLiteral("%1 %2*%3+%4").arg(f.name).arg(f.a).arg(f.other).arg(f.b); break;
    case SuggestedFix::Kind::Unnamed: got = f.name; break;
    case SuggestedFix::Kind::Unknown: break;
    }
    QCOMPARE(got, fields);
}

void TestSuggestedFixes::unapplied()
{
    const QString message = QStringLiteral("Constraints violated (q)! For more information, run with TORCH_LOGS=\"+dynamic\".\n"
                                           "  - The values of q = L['x'] and r = L['y'] must always be equal.\n"
                                           "Suggested fixes:\n"
                                           "  q = r\n"
                                           "  dx = dy // 2\n"
                                           "  dy = 7\n");
    const auto r = SuggestedFixApplier::apply(twoInputs(), message);
    QCOMPARE(r.applied.size(), 1);
    QCOMPARE(r.unapplied.size(), 2);
    QCOMPARE(r.unapplied[0].line, QStringLiteral("q = r"));
    QCOMPARE(r.unapplied[0].reason, QStringLiteral("no Dim named 'r'"));
    QCOMPARE(r.unapplied[1].reason, QStringLiteral("not a fix dimscope understands"));
    QVERIFY(!r.constraints.dim(QStringLiteral("dy")));
}

void TestSuggestedFixes::structureErrorsHaveNoFixes()
{
    const auto all = samples(QStringLiteral("spec-structure-errors.txt"));
    QVERIFY(!all.isEmpty());
    // Structure mismatches are not constraint violations: nothing to apply, nothing unapplied.
    const auto mismatches = SuggestedFixApplier::apply(twoInputs(), all.value(QStringLiteral("top-level mismatches")));
    QVERIFY(mismatches.applied.isEmpty());
    QVERIFY(mismatches.unapplied.isEmpty());
    QVERIFY(mismatches.violations.isEmpty());
    QCOMPARE(mismatches.constraints, twoInputs());
    // Bare fix lines are accepted when all of them are fixes.
    QCOMPARE(SuggestedFixApplier::apply(twoInputs(), QStringLiteral("dy = dx\ndx = Dim('dx', max=9)\n")).applied.size(), 2);
    // The file's "divisible" follow-up (ERR2) lists a violation and no fix.
    QFile f(QStringLiteral(DIMSCOPE_SOURCE_DIR "/tests/fixtures/torch-2.6/spec-structure-errors.txt"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(f.readAll());
    const QString err2 = text.mid(text.indexOf(QLatin1String("ERR2 ")) + 5);
    const auto r = SuggestedFixApplier::apply(twoInputs(), err2.left(err2.indexOf(QLatin1String("==="))));
    QCOMPARE(r.violations.size(), 1);
    QCOMPARE(r.violations[0].dim, QStringLiteral("dy"));
    QVERIFY(r.applied.isEmpty());
    // The round before it: 11 violations, a new unbounded root (max=oo) and dx = 2*_dx.
    const int start = text.indexOf(QLatin1String("Constraints violated (dx, dy)"));
    const QString first = text.mid(start, text.indexOf(QLatin1String("REFINED")) - start);
    const auto r1 = SuggestedFixApplier::apply(twoInputs(), first);
    QCOMPARE(r1.violations.size(), 11);
    QCOMPARE(r1.applied.size(), 2);
    QCOMPARE(r1.constraints.dim(QStringLiteral("_dx"))->max, std::optional<qint64>());
    QCOMPARE(r1.constraints.dim(QStringLiteral("dx"))->relationText(), QStringLiteral("2*_dx"));
}

// torch 2.14's message for a model that pads seq_len by 3 and reshapes it into fours
// (Bamba's chunked scan without its mask shortcut): the fresh root `_seq_len` comes with
// no min, and 4*_seq_len - 3 at torch's default 0 is -3, which torch's spec check
// rejects ("Expected derived min value of 4*_seq_len - 3 to be >= 0").
void TestSuggestedFixes::freshRootKeepsDerivedRange()
{
    const QString message = QStringLiteral(
        "Constraints violated (seq_len)! For more information, run with TORCH_LOGS=\"+dynamic\".\n"
        "  - Not all values of seq_len = L['x'].size()[1] in the specified range satisfy the generated guard ((3 + L['x'].size()[1]) // 4) != (3 + L['x'].size()[1]).\n"
        "  - Not all values of seq_len = L['x'].size()[1] in the specified range satisfy the generated guard ((3 + L['x'].size()[1]) % ((3 + L['x'].size()[1]) // 4)) == 0.\n"
        "Suggested fixes:\n"
        "  _seq_len = Dim('_seq_len', max=oo)\n"
        "  seq_len = 4*_seq_len - 3\n"
        "\n"
        "The error above occurred when calling torch.export.export.\n");
    ConstraintSet s;
    s.addRootDim(QStringLiteral("batch"));
    s.addRootDim(QStringLiteral("seq_len"));
    s.setLeaf(QStringLiteral("x"), {DimAssignment::named(QStringLiteral("batch")), DimAssignment::named(QStringLiteral("seq_len"))});
    const auto r = SuggestedFixApplier::apply(s, message);
    QCOMPARE(r.applied.size(), 2);
    QCOMPARE(r.constraints.dim(QStringLiteral("seq_len"))->relationText(), QStringLiteral("4*_seq_len - 3"));
    // The smallest root keeping 4*_seq_len - 3 >= 0 is 1; no max (torch said oo).
    QCOMPARE(r.constraints.dim(QStringLiteral("_seq_len"))->min, std::optional<qint64>(1));
    QCOMPARE(r.constraints.dim(QStringLiteral("_seq_len"))->max, std::optional<qint64>());
    QVERIFY(r.notes.value(QStringLiteral("seq_len = 4*_seq_len - 3")).contains(QLatin1String("new root _seq_len in [1, oo]")));
    // A derived Dim that had a range keeps it: seq_len in [2, 256] -> _seq_len in [2, 64].
    s.setRange(QStringLiteral("seq_len"), 2, 256);
    const auto bounded = SuggestedFixApplier::apply(s, message);
    QCOMPARE(bounded.constraints.dim(QStringLiteral("_seq_len"))->min, std::optional<qint64>(2));
    QCOMPARE(bounded.constraints.dim(QStringLiteral("_seq_len"))->max, std::optional<qint64>(64));
    // A root that already existed keeps the range it has (the user's or torch's).
    ConstraintSet withRoot = s;
    withRoot.addRootDim(QStringLiteral("_seq_len"));
    const auto existing = SuggestedFixApplier::apply(withRoot, QStringLiteral("seq_len = 4*_seq_len - 3\n"));
    QCOMPARE(existing.constraints.dim(QStringLiteral("_seq_len"))->min, std::optional<qint64>());
    QVERIFY(existing.notes.isEmpty());
}

DIMSCOPE_GUILESS_TEST_MAIN(TestSuggestedFixes)
#include "tst_suggestedfixes.moc"
