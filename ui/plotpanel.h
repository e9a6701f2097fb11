// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "models/loadedcapture.h"

#include <QPair>
#include <QSet>
#include <QWidget>

#include <optional>

class QAction;
class QComboBox;
class QCustomPlot;
class QCPItemRect;
class QCPItemText;
class QCPItemTracer;
class QLabel;
class QMouseEvent;
class QTimer;

namespace dimscope {

class ProjectDocument;

// The observed value of one dimension of the selected leaf in every call; zoom and pan
// with the mouse, hover a point for its call and value, Reset view to fit the values
// again, save as PNG or PDF with a title; recoloured with the palette (themes).
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
    // "input_ids dim 1 — Dim seq_len [1, 512]" (PlotText::title); empty with no plot.
    QString title() const { return m_titleText; }
    // The texts of the Dim bounds drawn as arrows at the top and bottom edges because
    // showing them would flatten the values ("max 512 ↑").
    QStringList edgeMarkers() const;
    // The text shown for the point under the mouse; empty when none is.
    QString hoverText() const { return m_hoverText; }
    // Fits the view to the values again (the Reset view button).
    void resetView();
    // By extension: .png or .pdf, with the title above the plot, atomically. Shows
    // "Saved FILE" or the problem in the panel. False (and nothing written) on failure,
    // with the problem in *error.
    bool saveTo(const QString &path, QString *error = nullptr);
    QCustomPlot *plot() const { return m_plot; }
    // What Save… proposes: named after the Dim or the leaf and dim plotted
    // ("seq_len.png", "past_key_values.key_cache_0-dim2.png").
    QString suggestedFileName() const;

private:
    void setUpPlot(); // axes, the two graphs, band, edge markers, hover ring
    void replot();
    void redraw();
    void draw(const QString &leafPath, int leafDim, const QString &assignedDim, const QSet<int> &violating);
    void updateBand(const QString &assignedDim);
    void updateTitle(const QString &leafPath, int leafDim, const QString &assignedDim);
    void refreshTitleLabel(); // the title with the violations count, in the palette's red
    void applyPalette();
    void saveInteractively();
    void showSaveResult(const QString &path, const QString &problem);
    void hoverAt(QMouseEvent *event);
    void clearHover();
    bool eventFilter(QObject *watched, QEvent *event) override;
    void changeEvent(QEvent *event) override;

    LoadedCapturePtr m_loaded;
    QComboBox *m_dimBox;
    QCustomPlot *m_plot;
    int m_node = -1;
    int m_dim = -1;
    QVector<QPointF> m_points;
    ProjectDocument *m_document = nullptr;
    QString m_dimName;
    QString m_assignedDim;
    QString m_titleText;
    QString m_hoverText;
    QLabel *m_dimLabel;
    QLabel *m_title;
    QLabel *m_saveStatus;
    QTimer *m_saveStatusTimer;
    QAction *m_saveAction;
    QCPItemRect *m_bandRect;
    QCPItemText *m_topMarker;
    QCPItemText *m_bottomMarker;
    QCPItemTracer *m_hoverTracer;
    std::optional<QPair<double, double>> m_band;
    QVector<int> m_violating;
};

} // namespace dimscope
