// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QSet>
#include <QString>

namespace dimscope {

// The names ShapeInference gives to Dims, following conventions people know from
// transformers and the anchors: batch, seq_len, past_len / cache_len, total_len,
// encoder_len and cross_len (encoder-decoder models), and
// `<leaf>_dim<i>` for anything else.
class DimNaming
{
public:
    struct Role {
        QString name;     // empty when no convention applies
        int priority = 0; // higher wins when one Dim has several roles
    };

    // The conventional role of dimension `dim` of a tensor leaf of rank `rank`.
    static Role roleOf(const QString &path, const QString &arg, int dim, int rank);
    // `<leaf path, sanitized>_dim<dim>`.
    static QString fallbackName(const QString &path, int dim);
    // `name`, or `name_2`, `name_3`, ... the first not in `taken`; adds it to `taken`.
    static QString claimUnique(const QString &name, QSet<QString> *taken);
};

} // namespace dimscope
