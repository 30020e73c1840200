# Reference numbers for tests/test_meta_random_effects.py, from R's metafor (Viechtbauer 2010).
#
# Usage: Rscript metafor_random_effects.R CASES.csv SMCC.csv OUT_DIR
#   CASES.csv: case, yi, vi           (one row per study; a case is one meta-analysis)
#   SMCC.csv:  row, mean, sd, n       (a paired mean difference, the SD of its differences, n topics)
# Writes OUT_DIR/pooled.csv (one row per case and model) and OUT_DIR/smcc.csv (yi, vi of each row).
# pi_low, pi_high: predict() of the model (after test="knha": t_{k-1} and the Knapp-Hartung SE);
# pi_low_higgins, pi_high_higgins: predict(pi.type = "riley") after test = "z", Higgins, Thompson &
# Spiegelhalter's (2009) interval (t_{k-2} and the Wald SE).
# Convergence thresholds are tightened so that the numbers are the estimators' exact values.
suppressPackageStartupMessages(library(metafor))
args <- commandArgs(trailingOnly = TRUE)
cases <- read.csv(args[1])
control <- list(threshold = 1e-12, tol = 1e-12, maxiter = 10000, stepadj = 0.5)
rows <- list()
for (case in unique(cases$case)) {
  d <- cases[cases$case == case, ]
  for (method in c("REML", "DL", "PM")) {
    higgins <- predict(rma(yi = d$yi, vi = d$vi, method = method, test = "z", control = control), pi.type = "riley")
    for (test in c("knha", "z")) {
      fit <- rma(yi = d$yi, vi = d$vi, method = method, test = test, control = control)
      p <- predict(fit)
      rows[[length(rows) + 1]] <- data.frame(
        case = case, method = method, test = test, tau2 = fit$tau2, estimate = as.numeric(fit$b),
        se = fit$se, ci_low = fit$ci.lb, ci_high = fit$ci.ub, pvalue = fit$pval, pi_low = p$pi.lb,
        pi_high = p$pi.ub, pi_low_higgins = higgins$pi.lb, pi_high_higgins = higgins$pi.ub, i2 = fit$I2 / 100,
        q = fit$QE, q_pvalue = fit$QEp)
    }
  }
}
write.csv(do.call(rbind, rows), file.path(args[3], "pooled.csv"), row.names = FALSE)
smcc <- read.csv(args[2])
# a paired difference as metafor's standardized mean change with change-score standardization:
# the first "time point" holds the difference, the second 0, so the change-score SD is sd
es <- escalc(measure = "SMCC", m1i = smcc$mean, m2i = 0 * smcc$mean, sd1i = smcc$sd, sd2i = 0 * smcc$sd,
             ni = smcc$n, ri = 0 * smcc$n)
write.csv(data.frame(row = smcc$row, yi = as.numeric(es$yi), vi = as.numeric(es$vi)),
          file.path(args[3], "smcc.csv"), row.names = FALSE)
