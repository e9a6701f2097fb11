// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "models/loadedcapture.h"

#include <QPair>
#include <QSet>
#include <QWidget>

#include <optional>

class QComboBox;
class QCustomPlot;
class QCPItemRect;
class QLabel;

namespace dimscope {

class ProjectDocument;

// The observed value of one dimension of the selected leaf in every call; zoom and pan
// with the mouse, save as PNG or PDF, recoloured with the palette.
class PlotPanel : public QWidget
{
    Q_OBJECT
public:
    explicit PlotPanel(QWidget *parent = nullptr);
    ~PlotPanel() override;

    void setLoaded(const LoadedCapturePtr &loaded);
    // With a document, the plot shows its capture (following captureChanged), draws the
    // range of the Dim a dimension is assigned to as a band and marks the calls that
    // violate it; it follows every edit.
    void setDocument(ProjectDocument *document);
    // The values of a Dim per call (from the first leaf dimension using it) with its
    // range; an empty name goes back to the selected leaf.
    void showDim(const QString &name);
    QString dim() const { return m_dimName; }
    // The band drawn: [lower, upper] (upper = qInf() when unbounded); empty when none.
    std::optional<QPair<double, double>> band() const { return m_band; }
    // The calls drawn as violating.
    QVector<int> violatingCalls() const { return m_violating; }
    void showNode(int node);    // picks its first dynamic dim
    void showDimension(int dim);
    int dimension() const { return m_dim; }
    // (call, value) points drawn; calls without the leaf are left out.
    QVector<QPointF> points() const { return m_points; }
    // By extension: .png or .pdf. False (and nothing written) otherwise.
    bool saveTo(const QString &path);
    QCustomPlot *plot() const { return m_plot; }

private:
    void replot();
    void redraw();
    void draw(const QString &name, const QString &assignedDim, const QSet<int> &violating);
    void applyPalette();
    void saveInteractively();
    void changeEvent(QEvent *event) override;

    LoadedCapturePtr m_loaded;
    QComboBox *m_dimBox;
    QCustomPlot *m_plot;
    int m_node = -1;
    int m_dim = -1;
    QVector<QPointF> m_points;
    ProjectDocument *m_document = nullptr;
    QString m_dimName;
    QLabel *m_title;
    QCPItemRect *m_bandRect;
    std::optional<QPair<double, double>> m_band;
    QVector<int> m_violating;
};

} // namespace dimscope
