// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/inputsfilterproxy.h"

#include "models/inputsmodel.h"

namespace dimscope {

InputsFilterProxy::InputsFilterProxy(QObject *parent) : QSortFilterProxyModel(parent)
{
    setRecursiveFilteringEnabled(true);
    setFilterCaseSensitivity(Qt::CaseInsensitive);
    setFilterKeyColumn(InputsModel::NameColumn);
    setFilterRole(InputsModel::KeyPathRole);
}

InputsFilterProxy::~InputsFilterProxy() = default;

} // namespace dimscope
