// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStringList>

namespace dimscope {

class ConstraintSet;
class ShapeTable;

// Constraints inferred from a few calls (the continuation program's synthesized calls)
// give one Dim to dims that are equal in those calls. When the recorded capture has a
// call where they differ, they are not one size: Gemma2's sliding-window layers keep
// at most the window while its full-attention layers grow, so their cache lengths are
// equal on a short cache and apart past the window. Such dims get a root Dim of their
// own (the first group keeps the Dim), with the same range, so the program serves
// caches past the window too.
class DimsSeenApart
{
public:
    // Splits each root Dim of `set` whose leaf dims differ in some call of `recorded`
    // (a call that has both leaves); the new Dims are named as inference names the
    // dim's role where no Dim has that name (tokens_seen), else `<leaf>_dim<i>`. Returns one note per split: "past_key_values.key_cache[1] dim 2 gets
    // its own Dim past_key_values_key_cache_1_dim2 (apart from past_len in call 5)".
    static QStringList split(ConstraintSet *set, const ShapeTable &recorded);
};

} // namespace dimscope
