// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QSortFilterProxyModel>

namespace dimscope {

// Filters the inputs tree on key paths (case-insensitive substring); a match keeps
// its ancestors visible (recursive filtering).
class InputsFilterProxy : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit InputsFilterProxy(QObject *parent = nullptr);
    ~InputsFilterProxy() override;
};

} // namespace dimscope
