// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QPointer>
#include <QWidget>

class QAbstractItemView;
class QLabel;
class QLineEdit;

namespace dimscope {

// A search field over several tables (or flat trees): a row stays shown when any of
// its cells contains the text (case-insensitive); the others are hidden, not removed,
// so selections and models stay as they are. "3 of 6 shown" counts the rows of the
// tables currently visible in `scope`.
class TableFilter : public QWidget
{
    Q_OBJECT
public:
    explicit TableFilter(QWidget *scope, QWidget *parent = nullptr);

    // Filters `view` from now on, also after its model is refilled (applied when
    // control returns to the event loop; refresh() applies it at once).
    void addView(QAbstractItemView *view);
    // Applies the text again and recounts (after a page of tables was switched).
    void refresh();

    QLineEdit *field() const { return m_field; }
    QLabel *countLabel() const { return m_count; }
    int shownRows() const { return m_shown; }
    int totalRows() const { return m_total; }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void refreshLater();
    void apply(QAbstractItemView *view);
    void recount();
    bool matches(QAbstractItemView *view, int row) const;

    QWidget *m_scope;
    QLineEdit *m_field;
    QLabel *m_count;
    QList<QPointer<QAbstractItemView>> m_views;
    int m_shown = 0;
    int m_total = 0;
    bool m_refreshQueued = false;
};

} // namespace dimscope
