// SPDX-License-Identifier: GPL-3.0-or-later
// The sympy expression parser (srepr and str forms), symbol ordering, and the
// key-path helpers of the pt2 reader.
#include "pt2/pt2treespec.h"
#include "pt2/symexpr.h"

#include "deterministictestmain.h"

using namespace dimscope;

class TstSymExpr : public QObject
{
    Q_OBJECT
private slots:
    void parse_data();
    void parse();
    void unsupported_data();
    void unsupported();
    void evaluate();
    void equality();
    void symbolOrder();
    void placeholderName_data();
    void placeholderName();
    void leafPaths();
    void badTreeSpecs_data();
    void badTreeSpecs();
};

void TstSymExpr::parse_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("rendered");
    QTest::addColumn<QStringList>("symbols");
    QTest::addColumn<bool>("bare");
    QTest::addColumn<bool>("affine");

    const QStringList s0{QStringLiteral("s0")};
    // srepr, as torch 2.6+ writes sizes
    QTest::newRow("srepr symbol") << "Symbol('s0', positive=True, integer=True)" << "s0" << s0 << true << true;
    QTest::newRow("srepr symbol kw first") << "Symbol('s12', integer=True, positive=True)" << "s12" << QStringList{QStringLiteral("s12")} << true << true;
    QTest::newRow("srepr integer") << "Integer(1)" << "1" << QStringList() << false << false;
    QTest::newRow("srepr negative integer") << "Integer(-3)" << "-3" << QStringList() << false << false;
    QTest::newRow("srepr add") << "Add(Symbol('s2', positive=True, integer=True), Integer(1))" << "s2 + 1"
                               << QStringList{QStringLiteral("s2")} << false << true;
    QTest::newRow("srepr add negative") << "Add(Symbol('s0', positive=True, integer=True), Integer(-1))" << "s0 - 1"
                                        << s0 << false << true;
    QTest::newRow("srepr mul") << "Mul(Integer(32), Symbol('s5', positive=True, integer=True))" << "32*s5"
                               << QStringList{QStringLiteral("s5")} << false << true;
    QTest::newRow("srepr affine") << "Add(Mul(Integer(32), Symbol('s5', positive=True, integer=True)), Integer(3))"
                                  << "32*s5 + 3" << QStringList{QStringLiteral("s5")} << false << true;
    QTest::newRow("srepr negated") << "Mul(Integer(-1), Symbol('s0', positive=True, integer=True))" << "-s0" << s0 << false << true;
    QTest::newRow("srepr nested") << "Add(Mul(Integer(2), Add(Symbol('s1'), Integer(1))), Integer(-2))" << "2*s1"
                                  << QStringList{QStringLiteral("s1")} << false << true;
    QTest::newRow("srepr two symbols") << "Add(Symbol('s0', positive=True, integer=True), Symbol('s1', positive=True, integer=True))"
                                       << "s0 + s1" << QStringList{QStringLiteral("s0"), QStringLiteral("s1")} << false << false;
    QTest::newRow("srepr singletons") << "Add(NegativeOne(), One(), Zero(), Symbol('s4'))" << "s4" << QStringList{QStringLiteral("s4")} << true << true;
    QTest::newRow("srepr mul three") << "Mul(Integer(2), Integer(3), Symbol('s0'))" << "6*s0" << s0 << false << true;
    QTest::newRow("srepr double quotes") << "Symbol(\"s7\", integer=True)" << "s7" << QStringList{QStringLiteral("s7")} << true << true;
    // str, as torch 2.5 writes sizes and every version writes range keys
    QTest::newRow("str symbol") << "s0" << "s0" << s0 << true << true;
    QTest::newRow("str add") << "s2 + 1" << "s2 + 1" << QStringList{QStringLiteral("s2")} << false << true;
    QTest::newRow("str mul") << "2*s1" << "2*s1" << QStringList{QStringLiteral("s1")} << false << true;
    QTest::newRow("str sub") << "s0 - 1" << "s0 - 1" << s0 << false << true;
    QTest::newRow("str affine") << "32*s5 + 3" << "32*s5 + 3" << QStringList{QStringLiteral("s5")} << false << true;
    QTest::newRow("str leading minus") << "-s0 + 4" << "-s0 + 4" << s0 << false << true;
    QTest::newRow("str constant first") << "3 + s0" << "s0 + 3" << s0 << false << true;
    QTest::newRow("str parenthesised") << "2*(s1 + 1)" << "2*s1 + 2" << QStringList{QStringLiteral("s1")} << false << true;
    QTest::newRow("str spaces") << "  s0  " << "s0" << s0 << true << true;
    QTest::newRow("str cancels") << "s0 - s0" << "0" << QStringList() << false << false;
    QTest::newRow("str constant") << "7" << "7" << QStringList() << false << false;
    QTest::newRow("str two symbols") << "s0 + 2*s1 - 5" << "s0 + 2*s1 - 5" << QStringList{QStringLiteral("s0"), QStringLiteral("s1")} << false << false;
    QTest::newRow("str negative coefficient") << "s3 - 2*s1" << "-2*s1 + s3" << QStringList{QStringLiteral("s1"), QStringLiteral("s3")} << false << false;
}

void TstSymExpr::parse()
{
    QFETCH(QString, text);
    QFETCH(QString, rendered);
    QFETCH(QStringList, symbols);
    QFETCH(bool, bare);
    QFETCH(bool, affine);
    const SymExpr e = SymExpr::parse(text);
    QVERIFY2(e.isSupported(), qPrintable(e.problem()));
    QCOMPARE(e.toString(), rendered);
    QCOMPARE(e.symbols(), symbols);
    QCOMPARE(e.isBareSymbol(), bare);
    QCOMPARE(e.isAffine(), affine);
    QCOMPARE(e.isConstant(), symbols.isEmpty());
    QCOMPARE(e.text(), text);
    // the plain form parses back to the same value
    QCOMPARE(SymExpr::parse(e.toString()), e);
}

void TstSymExpr::unsupported_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("problem");
    QTest::newRow("FloorDiv") << "FloorDiv(Symbol('s0', positive=True, integer=True), Integer(2))" << "FloorDiv";
    QTest::newRow("Max") << "Max(Integer(1), Symbol('s0'))" << "Max";
    QTest::newRow("Pow") << "Pow(Symbol('s0'), Integer(2))" << "Pow";
    QTest::newRow("srepr product") << "Mul(Symbol('s0'), Symbol('s1'))" << "product of symbols";
    QTest::newRow("str product") << "s0*s1" << "product of symbols";
    QTest::newRow("power") << "s0**2" << "'**'";
    QTest::newRow("division") << "s0/2" << "'/'";
    QTest::newRow("floor division") << "s0//2" << "'//'";
    QTest::newRow("modulo") << "s0 % 2" << "'%'";
    QTest::newRow("empty") << "" << "empty";
    QTest::newRow("dangling plus") << "s0 +" << "unexpected end";
    QTest::newRow("unclosed call") << "Add(Symbol('s0'), Integer(1)" << "expected ','";
    QTest::newRow("unclosed paren") << "(s0 + 1" << "expected ')'";
    QTest::newRow("symbol without name") << "Symbol(s0)" << "Symbol(...) needs one name string";
    QTest::newRow("unterminated string") << "Symbol('s0)" << "unterminated string";
    QTest::newRow("integer too large") << "Integer(99999999999999999999)" << "too large";
    QTest::newRow("overflow") << "9223372036854775807 + 1" << "overflow";
    QTest::newRow("mul overflow") << "Mul(Integer(4611686018427387904), Integer(4))" << "overflow";
    QTest::newRow("bad character") << "s0 $ 1" << "unexpected character '$'";
    QTest::newRow("infinity") << "oo" << "not a finite integer";
    QTest::newRow("trailing tokens") << "s0 s1" << "unexpected 's1'";
    QTest::newRow("Integer of symbol") << "Integer(Symbol('s0'))" << "Integer(...) needs one integer";
    QTest::newRow("string in Add") << "Add('s0', Integer(1))" << "unexpected string";
    QTest::newRow("bad keyword") << "Symbol('s0', positive=)" << "bad keyword";
}

void TstSymExpr::unsupported()
{
    QFETCH(QString, text);
    QFETCH(QString, problem);
    const SymExpr e = SymExpr::parse(text);
    QVERIFY(!e.isSupported());
    QVERIFY2(e.problem().contains(problem), qPrintable(e.problem()));
    QCOMPARE(e.toString(), text); // rendered as the raw text
    QVERIFY(e.symbols().isEmpty());
    QVERIFY(!e.isBareSymbol());
    QVERIFY(!e.isAffine());
    QVERIFY(!e.evaluate({{QStringLiteral("s0"), 3}}).has_value());
}

void TstSymExpr::evaluate()
{
    const SymExpr e = SymExpr::parse(QStringLiteral("Add(Mul(Integer(32), Symbol('s5')), Integer(3))"));
    QCOMPARE(e.evaluate({{QStringLiteral("s5"), 5}}), std::optional<qint64>(163));
    QVERIFY(!e.evaluate({{QStringLiteral("s4"), 5}}).has_value()); // s5 missing
    QVERIFY(!e.evaluate({{QStringLiteral("s5"), std::numeric_limits<qint64>::max()}}).has_value()); // overflow
    QCOMPARE(SymExpr::parse(QStringLiteral("s0 - s1")).evaluate({{QStringLiteral("s0"), 10}, {QStringLiteral("s1"), 4}}),
             std::optional<qint64>(6));
    QCOMPARE(SymExpr::constant(-9223372036854775807LL - 1).toString(), QStringLiteral("-9223372036854775808"));
}

void TstSymExpr::equality()
{
    // the two forms of one value compare equal: sizes (srepr) against range keys (str)
    QCOMPARE(SymExpr::parse(QStringLiteral("Add(Symbol('s1', positive=True, integer=True), Integer(1))")),
             SymExpr::parse(QStringLiteral("s1 + 1")));
    QCOMPARE(SymExpr::parse(QStringLiteral("s3")), SymExpr::symbol(QStringLiteral("s3")));
    QCOMPARE(SymExpr::parse(QStringLiteral("2*s3")), SymExpr::symbol(QStringLiteral("s3"), 2));
    QVERIFY(SymExpr::parse(QStringLiteral("s1 + 1")) != SymExpr::parse(QStringLiteral("s1 + 2")));
    QVERIFY(SymExpr::parse(QStringLiteral("s1")) != SymExpr::parse(QStringLiteral("s2")));
    QVERIFY(SymExpr::parse(QStringLiteral("s0**2")) != SymExpr::parse(QStringLiteral("s0")));
    QCOMPARE(SymExpr::parse(QStringLiteral("s0**2")), SymExpr::parse(QStringLiteral("s0**2")));
}

void TstSymExpr::symbolOrder()
{
    QStringList names{QStringLiteral("s11"), QStringLiteral("s3"), QStringLiteral("s0"), QStringLiteral("s1 + 1"),
                      QStringLiteral("s1"), QStringLiteral("u0"), QStringLiteral("s100")};
    std::sort(names.begin(), names.end(), symbolNameLess);
    QCOMPARE(names, (QStringList{QStringLiteral("s0"), QStringLiteral("s1"), QStringLiteral("s1 + 1"), QStringLiteral("s3"),
                                 QStringLiteral("s11"), QStringLiteral("s100"), QStringLiteral("u0")}));
    QVERIFY(!symbolNameLess(QStringLiteral("s2"), QStringLiteral("s2")));
}

void TstSymExpr::placeholderName_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("name");
    QTest::newRow("top") << "input_ids" << "input_ids";
    QTest::newRow("cache attr") << "past_key_values.key_cache[0]" << "past_key_values_key_cache_0";
    QTest::newRow("dict key") << "cache['keys'][1]" << "cache_keys_1";
    QTest::newRow("dict key odd chars") << "inputs['pixel-values.v2'][0]" << "inputs_pixel_values_v2_0";
    QTest::newRow("upper case") << "Inputs['A']" << "inputs_a";
    QTest::newRow("nested custom") << "cache.self_attention_cache.key_cache[11]" << "cache_self_attention_cache_key_cache_11";
}

void TstSymExpr::placeholderName()
{
    QFETCH(QString, path);
    QFETCH(QString, name);
    QCOMPARE(Pt2TreeSpec::placeholderName(path), name);
}

void TstSymExpr::leafPaths()
{
    // The in_spec of the shared llm-like-cache.pt2 sample (kwargs call, custom cache class).
    const QString spec = QStringLiteral(
        R"([1, {"type": "builtins.tuple", "context": "null", "children_spec": [{"type": "builtins.tuple", "context": "null", "children_spec": []}, {"type": "builtins.dict", "context": "[\"input_ids\", \"attention_mask\", \"past_key_values\"]", "children_spec": [{"type": null, "context": null, "children_spec": []}, {"type": null, "context": null, "children_spec": []}, {"type": "demo.Cache", "context": "[\"key_cache\", \"value_cache\"]", "children_spec": [{"type": "builtins.list", "context": "null", "children_spec": [{"type": null, "context": null, "children_spec": []}, {"type": null, "context": null, "children_spec": []}]}, {"type": "builtins.list", "context": "null", "children_spec": [{"type": null, "context": null, "children_spec": []}, {"type": null, "context": null, "children_spec": []}]}]}]}]}])");
    QString error;
    const auto paths = Pt2TreeSpec::leafPaths(spec, {}, &error);
    QVERIFY2(paths, qPrintable(error));
    QCOMPARE(*paths, (QStringList{QStringLiteral("input_ids"), QStringLiteral("attention_mask"),
                                  QStringLiteral("past_key_values.key_cache[0]"), QStringLiteral("past_key_values.key_cache[1]"),
                                  QStringLiteral("past_key_values.value_cache[0]"), QStringLiteral("past_key_values.value_cache[1]")}));

    // Positional args take their names from forward_arg_names; dicts give ['key'].
    const QString positional = QStringLiteral(
        R"([1, {"type": "builtins.tuple", "context": "null", "children_spec": [{"type": "builtins.tuple", "context": "null", "children_spec": [{"type": null, "context": null, "children_spec": []}, {"type": "builtins.dict", "context": "[\"keys\"]", "children_spec": [{"type": "builtins.list", "context": "null", "children_spec": [{"type": null, "context": null, "children_spec": []}]}]}]}, {"type": "builtins.dict", "context": "[]", "children_spec": []}]}])");
    const auto p2 = Pt2TreeSpec::leafPaths(positional, {QStringLiteral("x"), QStringLiteral("cache")}, &error);
    QVERIFY2(p2, qPrintable(error));
    QCOMPARE(*p2, (QStringList{QStringLiteral("x"), QStringLiteral("cache['keys'][0]")}));
    const auto p3 = Pt2TreeSpec::leafPaths(positional, {}, &error);
    QVERIFY2(p3, qPrintable(error));
    QCOMPARE(*p3, (QStringList{QStringLiteral("args[0]"), QStringLiteral("args[1]['keys'][0]")}));
}

void TstSymExpr::badTreeSpecs_data()
{
    QTest::addColumn<QString>("spec");
    QTest::addColumn<QString>("problem");
    QTest::newRow("not json") << "[1, {" << "not JSON";
    QTest::newRow("not a pair") << "{}" << "not [version, tree]";
    QTest::newRow("version 2") << R"([2, {"type": null, "context": null, "children_spec": []}])" << "version 2";
    QTest::newRow("no children") << R"([1, {"type": "builtins.list", "context": "null"}])" << "no children_spec";
    QTest::newRow("leaf with children")
        << R"([1, {"type": null, "context": null, "children_spec": [{"type": null, "context": null, "children_spec": []}]}])"
        << "leaf at '' has children";
    QTest::newRow("kwargs keys") << R"([1, {"type": "builtins.tuple", "context": "null", "children_spec": [{"type": "builtins.tuple", "context": "null", "children_spec": []}, {"type": "builtins.dict", "context": "[]", "children_spec": [{"type": null, "context": null, "children_spec": []}]}]}])"
                                 << "1 children";
    QTest::newRow("numeric type") << R"([1, {"type": 3, "context": null, "children_spec": [{"type": null, "context": null, "children_spec": []}]}])"
                                  << "non-string type";
    QString deep = QStringLiteral(R"({"type": null, "context": null, "children_spec": []})");
    for (int i = 0; i < 300; ++i)
        deep = QStringLiteral(R"({"type": "builtins.list", "context": "null", "children_spec": [%1]})").arg(deep);
    QTest::newRow("too deep") << QStringLiteral("[1, %1]").arg(deep) << "nested more than";
}

void TstSymExpr::badTreeSpecs()
{
    QFETCH(QString, spec);
    QFETCH(QString, problem);
    QString error;
    QVERIFY(!Pt2TreeSpec::leafPaths(spec, {}, &error));
    QVERIFY2(error.contains(problem), qPrintable(error));
}

DIMSCOPE_GUILESS_TEST_MAIN(TstSymExpr)
#include "tst_symexpr.moc"
