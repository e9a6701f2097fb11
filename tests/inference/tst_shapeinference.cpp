// SPDX-License-Identifier: GPL-3.0-or-later
#include "capturebuilder.h"
#include "constraintsummary.h"
#include "groupfixture.h"
#include "inference/dimnaming.h"
#include "inference/inferenceoptions.h"
#include "inference/shapeinference.h"

#include "deterministictestmain.h"

using namespace dimscope;
using namespace dimscope::test;

class TestShapeInference : public QObject
{
    Q_OBJECT
private slots:
    void infer_data();
    void infer();
    void observations();
    void exampleCall();
    void countLeavesAreNotBatches();
    void encoderDecoderNames();
};

static const QString kLlm = QStringLiteral(
    "input_ids=2x3 attention_mask=2x3 past_key_values=- | "
    "input_ids=2x1 attention_mask=2x4 past_key_values=cache(2:2x4x3x8) | "
    "input_ids=2x1 attention_mask=2x5 past_key_values=cache(2:2x4x4x8) | "
    "input_ids=2x1 attention_mask=2x6 past_key_values=cache(2:2x4x5x8)");

void TestShapeInference::infer_data()
{
    QTest::addColumn<QString>("capture");
    QTest::addColumn<QString>("mode");   // observed | all | batch:NAME,NAME | batch:all
    QTest::addColumn<QString>("dims");
    QTest::addColumn<QString>("leaves");
    QTest::addColumn<QStringList>("messages"); // "E:substring", "W:substring", "N:substring"

    // Seed: the add model, x (5,6)/(7,8), y (1,6)/(1,8) -> x: {0, 1}, y: {1}.
    QTest::newRow("seed add") << "x=5x6 y=1x6 | x=7x8 y=1x8" << "observed" << "batch[1,oo] x_dim1[2,oo]"
                              << "x(batch,x_dim1) y(static,x_dim1)"
                              << QStringList{QStringLiteral("N:'x_dim1' = batch + 1 in the captured calls, but only 2 distinct values")};
    // Seed: an LLM-like cache; batch does not vary -> only the cache length.
    QTest::newRow("seed llm observed")
        << kLlm << "observed" << "total_len=past_len + 1 past_len[2,oo]"
        << "input_ids(static,auto) attention_mask(static,total_len) "
           "past_key_values.key_cache[0](static,static,past_len,static) past_key_values.key_cache[1](static,static,past_len,static) "
           "past_key_values.value_cache[0](static,static,past_len,static) past_key_values.value_cache[1](static,static,past_len,static)"
        << QStringList{QStringLiteral("W:Dim 'seq_len' (input_ids dim 1) is 1 in call(s) 1-3: torch.export specializes sizes 0 and 1; it is 1 in the example call 1"),
                       QStringLiteral("N:'total_len' = past_len + 1 in every call that has both (calls 1-3)")};
    // ... with the batch forced: cache dims 0 and 2.
    QTest::newRow("seed llm batch all")
        << kLlm << "batch:all" << "batch[1,oo] total_len=past_len + 1 past_len[2,oo]"
        << "input_ids(batch,auto) attention_mask(batch,total_len) "
           "past_key_values.key_cache[0](batch,static,past_len,static) past_key_values.key_cache[1](batch,static,past_len,static) "
           "past_key_values.value_cache[0](batch,static,past_len,static) past_key_values.value_cache[1](batch,static,past_len,static)"
        << QStringList{};
    QTest::newRow("seed llm batch named")
        << kLlm << "batch:past_key_values" << "total_len=past_len + 1 batch[1,oo] past_len[2,oo]"
        << "input_ids(static,auto) attention_mask(static,total_len) "
           "past_key_values.key_cache[0](batch,static,past_len,static) past_key_values.key_cache[1](batch,static,past_len,static) "
           "past_key_values.value_cache[0](batch,static,past_len,static) past_key_values.value_cache[1](batch,static,past_len,static)"
        << QStringList{};
    // ... and with a varying batch, the cache's dim 0 is the inputs' batch.
    QTest::newRow("llm batch varies")
        << "input_ids=2x3 past_key_values=cache(1:2x4x3x8) | input_ids=3x4 past_key_values=cache(1:3x4x5x8) | "
           "input_ids=4x2 past_key_values=cache(1:4x4x2x8)"
        << "observed" << "batch[1,oo] seq_len[2,oo] past_len[2,oo]"
        << "input_ids(batch,seq_len) past_key_values.key_cache[0](batch,static,past_len,static) "
           "past_key_values.value_cache[0](batch,static,past_len,static)"
        << QStringList{};
    // Seed: multimodal; pixel_values recorded from value_if_missing takes part.
    QTest::newRow("seed multimodal value_if_missing")
        << "input_ids=1x5 pixel_values=0x3x224x224* | input_ids=1x9 pixel_values=1x3x224x224 | input_ids=1x7 pixel_values=1x3x224x224"
        << "observed" << "seq_len[2,oo]" << "input_ids(static,seq_len) pixel_values(auto,static,static,static)"
        << QStringList{QStringLiteral("W:Dim 'pixel_values_dim0' (pixel_values dim 0) is 0 or 1 in call(s) 0-2: torch.export specializes sizes 0 and 1; "
                       "it is 0 in the example call 0 (no call has every dynamic size >= 2), so it is proposed as Dim.AUTO")};
    // A missing optional input is skipped, not counted as a change.
    QTest::newRow("missing optional skipped")
        << "x=2x3 mask=- | x=2x3 mask=2x5 | x=2x3 mask=2x7" << "observed" << "total_len[2,oo]" << "mask(static,total_len)" << QStringList{};
    // Grouping: equal sequences share a Dim, different ones do not.
    QTest::newRow("grouping")
        << "a=2x3 b=3x2 c=4 | a=5x3 b=3x5 c=4 | a=7x3 b=3x7 c=9" << "observed" << "a_dim0[2,oo] c_dim0[2,oo]"
        << "a(a_dim0,static) b(static,a_dim0) c(c_dim0)" << QStringList{};
    // Derived: y = 2*x + 1 with 3 distinct values.
    QTest::newRow("derived positive")
        << "x=3 y=7 | x=4 y=9 | x=6 y=13" << "observed" << "x_dim0[2,oo] y_dim0=2*x_dim0 + 1" << "x(x_dim0) y(y_dim0)"
        << QStringList{QStringLiteral("N:'y_dim0' = 2*x_dim0 + 1")};
    // Derived with a negative offset: y = 2*x - 3; the root's min is raised so that y >= 0.
    QTest::newRow("derived negative b")
        << "x=3 y=3 | x=5 y=7 | x=8 y=13" << "observed" << "x_dim0[2,oo] y_dim0=2*x_dim0 - 3" << "x(x_dim0) y(y_dim0)"
        << QStringList{QStringLiteral("N:'y_dim0' = 2*x_dim0 - 3 in every call that has both")};
    QTest::newRow("derived raise min")
        << "x=3 y=1 | x=5 y=5 | x=8 y=11" << "observed" << "x_dim0[3,oo] y_dim0=2*x_dim0 - 5" << "x(x_dim0) y(y_dim0)"
        << QStringList{QStringLiteral("W:the min of 'x_dim0' is raised to 3"), QStringLiteral("W:Dim 'y_dim0' (y dim 0) is 1 in call(s) 0")};
    // The smaller group is the root: x = y + 2 -> y root, x derived.
    QTest::newRow("root is the smaller")
        << "x=5 y=3 | x=6 y=4 | x=9 y=7" << "observed" << "x_dim0=y_dim0 + 2 y_dim0[2,oo]" << "x(x_dim0) y(y_dim0)" << QStringList{};
    // Sum of two symbols: reported, kept separate.
    QTest::newRow("sum note")
        << "p=2 s=3 t=5 | p=4 s=2 t=6 | p=5 s=4 t=9 | p=7 s=3 t=10" << "observed" << "p_dim0[2,oo] s_dim0[2,oo] t_dim0[2,oo]"
        << "p(p_dim0) s(s_dim0) t(t_dim0)" << QStringList{QStringLiteral("N:'t_dim0' = 'p_dim0' + 's_dim0'")};
    // 0/1 warnings name the calls.
    QTest::newRow("zero one warning")
        << "x=0x4 | x=1x4 | x=3x4" << "observed" << "batch[0,oo]" << "x(batch,static)"
        << QStringList{QStringLiteral("W:Dim 'batch' (x dim 0) is 0 or 1 in call(s) 0, 1: torch.export specializes sizes 0 and 1; dimscope exports from call 2")};
    // Ranks that change are errors naming the leaf and the calls.
    QTest::newRow("rank mismatch")
        << "x=2x3 | x=2x3x4 | x=2x5" << "observed" << "" << ""
        << QStringList{QStringLiteral("E:'x' changes rank between calls: a rank-2 tensor in call(s) 0, 2; a rank-3 tensor in call(s) 1")};
    // A structure that changes (a leaf some calls have and others not) is one program per
    // structure: a warning per input and pair of call sets, not an error.
    QTest::newRow("structure mismatch")
        << "c=cache(2:1x2x3x4) | c=cache(3:1x2x4x4)" << "observed" << "cache_len[2,oo]"
        << "c.key_cache[0](static,static,cache_len,static) c.key_cache[1](static,static,cache_len,static) "
           "c.value_cache[0](static,static,cache_len,static) c.value_cache[1](static,static,cache_len,static)"
        << QStringList{QStringLiteral("W:2 leaves of 'c' ('c.key_cache[2]', +1 more) are present in call(s) 1 but absent "
                                      "from call(s) 0: the structure of 'c' changes between calls")};
    QTest::newRow("kind mismatch")
        << "x=2x3 | x=int(3)" << "observed" << "" << "" << QStringList{QStringLiteral("E:'x' changes kind between calls: a rank-2 tensor in call(s) 0; an int in call(s) 1")};
    // A leaf seen in a single call.
    QTest::newRow("single call leaf")
        << "x=2x3 m=- | x=3x3 m=4x4" << "observed" << "batch[1,oo]" << "x(batch,static)"
        << QStringList{QStringLiteral("W:'m' is seen in a single call (call 1)")};
    QTest::newRow("one call") << "x=2x3" << "observed" << "" << "" << QStringList{QStringLiteral("W:only one call was captured")};
    // All-dynamic: every dimension, constant ones each their own Dim.
    QTest::newRow("all dynamic")
        << "x=2x3 y=2 | x=4x3 y=2" << "all" << "batch[1,oo] x_dim1[2,oo] y_dim0[2,oo]" << "x(batch,x_dim1) y(y_dim0)" << QStringList{};
}


void TestShapeInference::infer()
{
    QFETCH(QString, capture);
    QFETCH(QString, mode);
    QFETCH(QString, dims);
    QFETCH(QString, leaves);
    QFETCH(QStringList, messages);

    const InferenceResult r = ShapeInference::infer(makeCapture(capture), optionsFor(mode));
    QCOMPARE(summarizeDims(r.constraints), dims);
    QCOMPARE(summarizeLeaves(r.constraints), leaves);
    QVERIFY2(r.constraints.checkInvariants().isEmpty(), qPrintable(r.constraints.checkInvariants()));
    for (const QString &expected : messages) {
        const auto severity = expected.startsWith(QLatin1String("E:")) ? InferenceMessage::Severity::Error
            : expected.startsWith(QLatin1String("W:"))                 ? InferenceMessage::Severity::Warning
                                                                       : InferenceMessage::Severity::Note;
        const QStringList texts = r.texts(severity);
        bool found = false;
        for (const QString &t : texts)
            found = found || t.contains(expected.mid(2));
        QVERIFY2(found, qPrintable(QStringLiteral("missing %1\nhave:\n%2").arg(expected, texts.join(QLatin1Char('\n')))));
    }
    const bool expectErrors = std::any_of(messages.begin(), messages.end(), [](const QString &m) { return m.startsWith(QLatin1String("E:")); });
    QCOMPARE(r.hasErrors(), expectErrors);
}

void TestShapeInference::observations()
{
    const InferenceResult r = ShapeInference::infer(makeCapture(kLlm));
    // past_key_values.key_cache[0] dim 2: absent in call 0.
    const auto it = std::find_if(r.observations.begin(), r.observations.end(), [](const DimObservation &o) {
        return o.path == QLatin1String("past_key_values.key_cache[0]") && o.dim == 2;
    });
    QVERIFY(it != r.observations.end());
    QCOMPARE(it->values, (QVector<qint64>{-1, 3, 4, 5}));
    QVERIFY(it->dynamic);
    QCOMPARE(it->dimName, QStringLiteral("past_len"));
    const auto seq = std::find_if(r.observations.begin(), r.observations.end(), [](const DimObservation &o) {
        return o.path == QLatin1String("input_ids") && o.dim == 1;
    });
    QCOMPARE(seq->dimName, QStringLiteral("auto")); // 1 in the example call
    QCOMPARE(seq->values, (QVector<qint64>{3, 1, 1, 1}));
    QCOMPARE(r.observations.size(), 2 + 2 + 4 * 4);
}

void TestShapeInference::exampleCall()
{
    // Call 0 has the 0 image, calls 1.. have seq_len 1: the call with most dims >= 2.
    QCOMPARE(ShapeInference::infer(makeCapture(kLlm)).exampleCall, 1);
    QCOMPARE(ShapeInference::infer(makeCapture(QStringLiteral("x=1x4 | x=3x4 | x=5x4"))).exampleCall, 1);
    QCOMPARE(ShapeInference::infer(makeCapture(QStringLiteral("x=2x4 | x=3x4"))).exampleCall, 0);
    // Two Dims (a and b) that are equal in calls 0 and 1 but not in call 2: from call
    // 2 torch cannot take them for one (a sliding window's length vs the full length).
    const InferenceResult apart = ShapeInference::infer(makeCapture(QStringLiteral("a=3x2 b=3x2 | a=4x2 b=4x2 | a=5x2 b=4x2")));
    QCOMPARE(apart.exampleCall, 2);
}

void TestShapeInference::encoderDecoderNames()
{
    // T5 under generate(): the encoder's mask and output states share the encoder
    // length; the cross-attention cache holds it too, from the first decoder step on.
    using dimscope::DimNaming;
    QCOMPARE(DimNaming::roleOf(QStringLiteral("past_key_values.cross_attention_cache.key_cache[0]"),
                               QStringLiteral("past_key_values"), 2, 4).name, QStringLiteral("cross_len"));
    QCOMPARE(DimNaming::roleOf(QStringLiteral("past_key_values.self_attention_cache.key_cache[0]"),
                               QStringLiteral("past_key_values"), 2, 4).name, QStringLiteral("past_len"));
    // dimscope.cachelayers' count of a sliding-window layer's tokens seen (issue 27 item 4).
    QCOMPARE(DimNaming::roleOf(QStringLiteral("past_key_values.tokens_seen[0]"), QStringLiteral("past_key_values"), 0, 1)
                 .name, QStringLiteral("tokens_seen"));
    const InferenceResult r = ShapeInference::infer(
        makeCapture(QStringLiteral("attention_mask=2x5 encoder_outputs=2x5x32 | attention_mask=2x8 encoder_outputs=2x8x32")));
    QCOMPARE(summarizeLeaves(r.constraints), QStringLiteral("attention_mask(static,encoder_len) encoder_outputs(static,encoder_len,static)"));
    // A decode call has no input_ids: the batch group is the mask, the decoder's ids and
    // the encoder's output states, all batched, so the batch is declared from 1 as for a
    // decoder (BART and T5 were declared from 2, and a batch of 1 ran unverified).
    const InferenceResult decode = ShapeInference::infer(
        makeCapture(QStringLiteral("attention_mask=2x5 decoder_input_ids=2x1 encoder_outputs=2x5x32 | "
                                   "attention_mask=2x8 decoder_input_ids=2x1 encoder_outputs=2x8x32")),
        optionsFor(QStringLiteral("batch:all")));
    QCOMPARE(summarizeDims(decode.constraints), QStringLiteral("batch[1,oo] encoder_len[2,oo]"));
}

// A count the recorder made a size (a cache layer's int or bool recorded by its
// attributes, a sliding layer's tokens seen) is never forced dynamic as a batch: a
// window or a compression rate, the same in every call, stays static.
void TestShapeInference::countLeavesAreNotBatches()
{
    InferenceOptions o;
    o.batchForAll = true;
    const QString cache = QStringLiteral("past_key_values");
    QVERIFY(!o.forcesBatchOf(cache, QStringLiteral("past_key_values.layer_attributes[0]['sliding_window']['size']")));
    QVERIFY(!o.forcesBatchOf(cache, QStringLiteral("past_key_values.layer_attributes[1]['entry_count']['dict']['indexer']['size']")));
    QVERIFY(!o.forcesBatchOf(cache, QStringLiteral("past_key_values.layer_attributes[0]['is_initialized']['flag']")));
    QVERIFY(!o.forcesBatchOf(cache, QStringLiteral("past_key_values.tokens_seen[0]")));
    QVERIFY(o.forcesBatchOf(cache, QStringLiteral("past_key_values.layer_attributes[0]['keys']['tensor']")));
    QVERIFY(o.forcesBatchOf(cache, QStringLiteral("past_key_values.key_cache[0]")));
    QVERIFY(o.forcesBatchOf(QStringLiteral("sizes"), QStringLiteral("sizes['size']"))); // not a recorded count
    const InferenceResult r = ShapeInference::infer(makeCapture(QStringLiteral("x=2x3 | x=2x4")), o);
    QCOMPARE(summarizeLeaves(r.constraints), QStringLiteral("x(batch,x_dim1)"));
}

DIMSCOPE_GUILESS_TEST_MAIN(TestShapeInference)
#include "tst_shapeinference.moc"
