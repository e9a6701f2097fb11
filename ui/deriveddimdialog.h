// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDialog>
#include <QVector>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace dimscope {

class ProjectDocument;

// "Derived Dim" for one leaf dimension: name = A * root + B. Proposes the root and
// coefficients that fit every captured call, and says live whether the chosen ones do.
class DerivedDimDialog : public QDialog
{
    Q_OBJECT
public:
    DerivedDimDialog(const ProjectDocument *document, const QString &path, int dim, QWidget *parent = nullptr);

    QString name() const;
    QString root() const;
    qint64 a() const;
    qint64 b() const;

private:
    void check();
    QVector<qint64> rootValues(const QString &root) const;

    const ProjectDocument *m_document;
    QVector<qint64> m_values; // this dimension per call (-1: absent)
    QLineEdit *m_name;
    QComboBox *m_root;
    QSpinBox *m_a;
    QSpinBox *m_b;
    QLabel *m_fit;
    QDialogButtonBox *m_buttons;
};

} // namespace dimscope
