// SPDX-License-Identifier: GPL-3.0-or-later
#include "inference/dimnaming.h"

#include "constraints/dimdecl.h"

#include <QStringList>

namespace dimscope {

namespace {

bool isCacheLeaf(const QString &path, const QString &arg, int rank)
{
    if (rank != 4)
        return false;
    const QString p = path.toLower();
    return p.contains(QLatin1String("cache")) || p.contains(QLatin1String("past"));
}

bool isTokenInput(const QString &arg)
{
    static const QStringList names = {QStringLiteral("input_ids"), QStringLiteral("inputs_embeds"),
                                      QStringLiteral("decoder_input_ids"), QStringLiteral("decoder_inputs_embeds"),
                                      QStringLiteral("token_type_ids"), QStringLiteral("labels"),
                                      QStringLiteral("position_ids")};
    return names.contains(arg);
}

// An encoder's output states (encoder_outputs, encoder_hidden_states) are batched too: an
// encoder-decoder's decode call has no input_ids, so without them its batch group is not
// all batch and is declared from 2 (a batch of 1 then runs unverified).
bool isBatchedInput(const QString &arg)
{
    static const QStringList names = {QStringLiteral("x"), QStringLiteral("input"), QStringLiteral("inputs"),
                                      QStringLiteral("hidden_states"), QStringLiteral("input_features"),
                                      QStringLiteral("attention_mask"), QStringLiteral("decoder_attention_mask"),
                                      QStringLiteral("encoder_outputs"), QStringLiteral("encoder_hidden_states")};
    return isTokenInput(arg) || names.contains(arg);
}

} // namespace

DimNaming::Role DimNaming::roleOf(const QString &path, const QString &arg, int dim, int rank)
{
    const bool cache = isCacheLeaf(path, arg, rank);
    if (dim == 0 && rank >= 2 && (cache || isBatchedInput(arg)))
        return {QStringLiteral("batch"), 5};
    // An encoder-decoder cache's cross-attention part holds the encoder's keys: its
    // length is the encoder length (0 before the first decoder step fills it).
    if (cache && dim == 2 && path.contains(QLatin1String("cross_attention")))
        return {QStringLiteral("cross_len"), 4};
    if (cache && dim == 2)
        return {arg.toLower().contains(QLatin1String("past")) ? QStringLiteral("past_len") : QStringLiteral("cache_len"), 4};
    // dimscope.cachelayers' count of the tokens a sliding-window cache layer has seen
    // (a cache without a full-attention layer): a tensor as long as the count.
    if (rank == 1 && dim == 0 && path.contains(QLatin1String(".tokens_seen[")))
        return {QStringLiteral("tokens_seen"), 4};
    if (isTokenInput(arg) && ((rank >= 2 && dim == 1) || (rank == 1 && dim == 0)))
        return {QStringLiteral("seq_len"), 3};
    if (arg == QLatin1String("cache_position") && rank == 1 && dim == 0)
        return {QStringLiteral("seq_len"), 3};
    // The encoder's output states (encoder_outputs.0 / last_hidden_state): their length
    // is the encoder length, which the encoder's attention mask shares.
    if ((arg == QLatin1String("encoder_outputs") || arg == QLatin1String("encoder_hidden_states")) && rank == 3
        && dim == 1)
        return {QStringLiteral("encoder_len"), 3};
    if (arg.toLower().contains(QLatin1String("mask")) && rank >= 2 && dim == rank - 1)
        return {QStringLiteral("total_len"), 2};
    return {};
}

QString DimNaming::fallbackName(const QString &path, int dim)
{
    return dimname::sanitize(path) + QStringLiteral("_dim%1").arg(dim);
}

QString DimNaming::claimUnique(const QString &name, QSet<QString> *taken)
{
    QString candidate = dimname::isValid(name) ? name : dimname::sanitize(name);
    const QString base = candidate;
    for (int n = 2; taken->contains(candidate); ++n)
        candidate = QStringLiteral("%1_%2").arg(base).arg(n);
    taken->insert(candidate);
    return candidate;
}

} // namespace dimscope
