//! Moving a parsed statement: every range in it, identifiers included, made relative to a
//! new origin. An item's syntax is its module statement moved to the item's start, which
//! is what parsing the item's text alone gives (tests/item_parse.rs compares the two on
//! every construct), without parsing it a second time.

use ruff_python_ast::visitor::transformer::{self, Transformer};
use ruff_python_ast::{
    self as ast, Alias, Arguments, Comprehension, Decorator, ElifElseClause, ExceptHandler, Expr, FString, Identifier,
    InterpolatedStringElement, Keyword, MatchCase, Parameter, Parameters, Pattern, PatternArguments, PatternKeyword, Stmt,
    StringLiteral, TString, TypeParam, TypeParams, WithItem,
};
use ruff_text_size::{TextRange, TextSize};

/// Subtract `by` from every range in `stmt` (each starts at `by` or later).
pub fn shift_stmt(stmt: &mut Stmt, by: TextSize) {
    Shift(by).visit_stmt(stmt);
}

struct Shift(TextSize);

impl Shift {
    fn range(&self, range: &mut TextRange) {
        *range -= self.0;
    }

    fn identifier(&self, id: &mut Identifier) {
        self.range(&mut id.range);
    }
}

/// `node.range` of whichever variant `$node` is (the variants listed; more arms after `;`).
macro_rules! shift_variant {
    ($shift:expr, $node:expr, $enum:ident: $($variant:ident),* $(,)? $(; $($arms:tt)*)?) => {
        match $node {
            $($enum::$variant(n) => $shift.range(&mut n.range),)*
            $($($arms)*)?
        }
    };
}

impl Transformer for Shift {
    fn visit_stmt(&self, stmt: &mut Stmt) {
        shift_variant!(self, stmt, Stmt: FunctionDef, ClassDef, Return, Delete, TypeAlias, Assign, AugAssign, AnnAssign, For,
            While, If, With, Match, Raise, Try, Assert, Import, ImportFrom, Global, Nonlocal, Expr, Pass, Break, Continue,
            IpyEscapeCommand);
        match stmt {
            Stmt::FunctionDef(f) => self.identifier(&mut f.name),
            Stmt::ClassDef(c) => self.identifier(&mut c.name),
            Stmt::ImportFrom(i) => i.module.iter_mut().for_each(|m| self.identifier(m)),
            Stmt::Global(ast::StmtGlobal { names, .. }) | Stmt::Nonlocal(ast::StmtNonlocal { names, .. }) => {
                names.iter_mut().for_each(|n| self.identifier(n));
            }
            _ => {}
        }
        transformer::walk_stmt(self, stmt);
    }

    fn visit_decorator(&self, decorator: &mut Decorator) {
        self.range(&mut decorator.range);
        transformer::walk_decorator(self, decorator);
    }

    fn visit_expr(&self, expr: &mut Expr) {
        shift_variant!(self, expr, Expr: BoolOp, Named, BinOp, UnaryOp, Lambda, If, Dict, Set, ListComp, SetComp, DictComp,
            Generator, Await, Yield, YieldFrom, Compare, FString, TString, StringLiteral, BytesLiteral, NumberLiteral,
            BooleanLiteral, NoneLiteral, EllipsisLiteral, Attribute, Subscript, Starred, Name, List, Tuple, Slice,
            IpyEscapeCommand;
            // A call's range ends where its arguments do.
            Expr::Call(c) => c.range_start -= self.0,
        );
        if let Expr::Attribute(a) = expr {
            self.identifier(&mut a.attr);
        }
        transformer::walk_expr(self, expr);
    }

    fn visit_comprehension(&self, comprehension: &mut Comprehension) {
        self.range(&mut comprehension.range);
        transformer::walk_comprehension(self, comprehension);
    }

    fn visit_except_handler(&self, handler: &mut ExceptHandler) {
        let ExceptHandler::ExceptHandler(h) = handler;
        self.range(&mut h.range);
        h.name.iter_mut().for_each(|n| self.identifier(n));
        transformer::walk_except_handler(self, handler);
    }

    fn visit_arguments(&self, arguments: &mut Arguments) {
        self.range(&mut arguments.range);
        transformer::walk_arguments(self, arguments);
    }

    fn visit_parameters(&self, parameters: &mut Parameters) {
        self.range(&mut parameters.range);
        // The walk visits each parameter, not the `name=default` node around it.
        let Parameters { posonlyargs, args, kwonlyargs, .. } = parameters;
        for p in posonlyargs.iter_mut().chain(args.iter_mut()).chain(kwonlyargs.iter_mut()) {
            self.range(&mut p.range);
        }
        transformer::walk_parameters(self, parameters);
    }

    fn visit_parameter(&self, parameter: &mut Parameter) {
        self.range(&mut parameter.range);
        self.identifier(&mut parameter.name);
        transformer::walk_parameter(self, parameter);
    }

    fn visit_keyword(&self, keyword: &mut Keyword) {
        self.range(&mut keyword.range);
        keyword.arg.iter_mut().for_each(|a| self.identifier(a));
        transformer::walk_keyword(self, keyword);
    }

    fn visit_alias(&self, alias: &mut Alias) {
        self.range(&mut alias.range);
        self.identifier(&mut alias.name);
        alias.asname.iter_mut().for_each(|a| self.identifier(a));
    }

    fn visit_with_item(&self, item: &mut WithItem) {
        self.range(&mut item.range);
        transformer::walk_with_item(self, item);
    }

    fn visit_type_params(&self, params: &mut TypeParams) {
        self.range(&mut params.range);
        transformer::walk_type_params(self, params);
    }

    fn visit_type_param(&self, param: &mut TypeParam) {
        match param {
            TypeParam::TypeVar(t) => {
                self.range(&mut t.range);
                self.identifier(&mut t.name);
            }
            TypeParam::TypeVarTuple(t) => {
                self.range(&mut t.range);
                self.identifier(&mut t.name);
            }
            TypeParam::ParamSpec(t) => {
                self.range(&mut t.range);
                self.identifier(&mut t.name);
            }
        }
        transformer::walk_type_param(self, param);
    }

    fn visit_match_case(&self, case: &mut MatchCase) {
        self.range(&mut case.range);
        transformer::walk_match_case(self, case);
    }

    fn visit_pattern(&self, pattern: &mut Pattern) {
        shift_variant!(self, pattern, Pattern: MatchValue, MatchSingleton, MatchSequence, MatchMapping, MatchClass, MatchStar,
            MatchAs, MatchOr);
        match pattern {
            Pattern::MatchMapping(m) => m.rest.iter_mut().for_each(|r| self.identifier(r)),
            Pattern::MatchStar(m) => m.name.iter_mut().for_each(|n| self.identifier(n)),
            Pattern::MatchAs(m) => m.name.iter_mut().for_each(|n| self.identifier(n)),
            _ => {}
        }
        transformer::walk_pattern(self, pattern);
    }

    fn visit_pattern_arguments(&self, arguments: &mut PatternArguments) {
        self.range(&mut arguments.range);
        transformer::walk_pattern_arguments(self, arguments);
    }

    fn visit_pattern_keyword(&self, keyword: &mut PatternKeyword) {
        self.range(&mut keyword.range);
        self.identifier(&mut keyword.attr);
        transformer::walk_pattern_keyword(self, keyword);
    }

    fn visit_elif_else_clause(&self, clause: &mut ElifElseClause) {
        self.range(&mut clause.range);
        transformer::walk_elif_else_clause(self, clause);
    }

    fn visit_f_string(&self, f_string: &mut FString) {
        self.range(&mut f_string.range);
        transformer::walk_f_string(self, f_string);
    }

    fn visit_t_string(&self, t_string: &mut TString) {
        self.range(&mut t_string.range);
        transformer::walk_t_string(self, t_string);
    }

    fn visit_interpolated_string_element(&self, element: &mut InterpolatedStringElement) {
        match element {
            InterpolatedStringElement::Literal(l) => self.range(&mut l.range),
            InterpolatedStringElement::Interpolation(i) => {
                self.range(&mut i.range);
                if let Some(spec) = &mut i.format_spec {
                    self.range(&mut spec.range);
                }
            }
        }
        transformer::walk_interpolated_string_element(self, element);
    }

    fn visit_string_literal(&self, literal: &mut StringLiteral) {
        self.range(&mut literal.range);
    }

    fn visit_bytes_literal(&self, literal: &mut ast::BytesLiteral) {
        self.range(&mut literal.range);
    }
}
